/**
 * The small shell programs patchloop runs inside containers. Arguments always travel as positional
 * parameters ("$1"...), never pasted into the script text, so no quoting can break them.
 */

/** Where the rc file lives in the container; BASH_ENV points there for every command. */
export const BASH_ENV_PATH = "/etc/patchloop/bashenv.sh";

/** Folder of the pid files that let a timeout or an interrupt reach a command's process group. */
const PID_DIR = "/tmp/.patchloop";

/**
 * Sourced by every non-interactive bash (BASH_ENV): activates the conda env `testbed` when the
 * image has one (SWE-bench images: /opt/miniconda3), once per process tree.
 */
export const BASH_ENV_SCRIPT = `# Written by patchloop: commands run in the image's conda env "testbed" when it has one.
if [ -z "\${PATCHLOOP_BASHENV_DONE:-}" ]; then
  export PATCHLOOP_BASHENV_DONE=1
  for _patchloop_conda in /opt/miniconda3 /opt/conda /root/miniconda3 /root/anaconda3; do
    if [ -f "$_patchloop_conda/bin/activate" ] && [ -d "$_patchloop_conda/envs/testbed" ]; then
      . "$_patchloop_conda/bin/activate" >/dev/null 2>&1 && conda activate testbed >/dev/null 2>&1
      break
    fi
  done
  unset _patchloop_conda
fi
`;

/** Writes stdin to BASH_ENV_PATH (run as root). */
export const WRITE_BASH_ENV = `mkdir -p "$(dirname "$1")" && cat > "$1"`;

/**
 * Runs one command: records the wrapper's PID (a `docker exec` process leads its own session and
 * process group, so that PID names the group a timeout kills), runs `bash -c "$2"` with stderr
 * merged into stdout in order, removes the pid file and passes the exit status on.
 * Positional: $1 token, $2 command.
 */
export const EXEC_WRAPPER = `mkdir -p ${PID_DIR} 2>/dev/null && echo $$ > "${PID_DIR}/$1.pid" 2>/dev/null
bash -c "$2" 2>&1
rc=$?
rm -f "${PID_DIR}/$1.pid"
exit $rc`;

/** Starts a long-lived program after recording its PID. Positional: $1 token, then the argv. */
export const SPAWN_WRAPPER = `mkdir -p ${PID_DIR} 2>/dev/null && echo $$ > "${PID_DIR}/$1.pid" 2>/dev/null
shift
exec "$@"`;

/**
 * Sends a signal to the process group recorded for a token, waiting up to 2 s for the pid file
 * (the command may be starting). Positional: $1 token, $2 signal name.
 */
export const SIGNAL_GROUP = `f="${PID_DIR}/$1.pid"; i=0
while [ ! -s "$f" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
p=$(cat "$f" 2>/dev/null) || exit 0
kill -s "$2" -- "-$p" 2>/dev/null || kill -s "$2" "$p" 2>/dev/null
[ "$2" = KILL ] && rm -f "$f"
exit 0`;

/** Writes stdin to "$1", creating its folder. Run with sh (BASH_ENV is not read). */
export const WRITE_FILE = `mkdir -p "$(dirname "$1")" && cat > "$1"`;
