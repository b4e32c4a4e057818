/** A problem with the user's configuration or command line. The CLI prints it and exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
