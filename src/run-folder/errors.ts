/** The run folder or the selection cannot be used as given (the CLI exits with status 2); nothing was changed. */
export class BatchInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BatchInputError";
  }
}
