/** The text of `mcp-tasks --help`. */
import { EXIT_CODE_HELP } from "./exit-codes.js";

export const USAGE = `Usage:
  mcp-tasks call <url> <tool> [args…] [options]        call a tool on a Streamable HTTP server
  mcp-tasks call <tool> [args…] [options] -- <command> [args…]   … on a stdio server started by <command>
  mcp-tasks watch <taskId|ref> [--server <url>] [options]   follow a task to its end
  mcp-tasks cancel <taskId|ref> [--server <url>]       send tasks/cancel and show the server's final word
  mcp-tasks ls                                         unfinished tasks in the store
  mcp-tasks tools <url> | tools -- <command> [args…]   the tools a server offers

Tool arguments (merged left to right):
  '{"seconds":5}'      a JSON object
  seconds=5 label=hi   key=value pairs; a value is read as JSON when it parses, else as text
  @args.json           a file holding a JSON object

A task is <taskId> (looked up in the store), a TaskRef as JSON, or @ref.json.

Options:
  --json               print NDJSON events (task, update, input, inputUnanswered, note, outcome) on stdout
  --detach             start the task, print its ref and exit (code 7); follow it later with \`watch\`
                       (HTTP servers only: a stdio server stops when this command exits)
  --timeout <time>     stop waiting after 30s, 2m, 500ms… (the task keeps running)
  --server <url>       the server of a task (watch, cancel) when the store does not know it
  --store <dir>        the task store (default: $XDG_STATE_HOME/mcp-tasks or the platform's state directory)
  --no-input           never prompt; input requests get the --unanswered policy (also without a terminal)
  --unanswered <what>  input that cannot be answered: fail (default), decline or cancel
  --allow-sampling     let servers ask for a model completion (you type the reply)
  --roots <dir>        offer <dir> as a root (repeat for more); otherwise roots are not offered
  -h, --help           print this help

Ctrl-C cancels the task (tasks/cancel) and waits for the server's final word; a second Ctrl-C detaches
and prints how to resume (on a stdio server, which stops with this command, there is nothing to resume). Progress goes to stderr (a live line on a terminal, timestamped lines otherwise),
the result to stdout.

${EXIT_CODE_HELP}`;
