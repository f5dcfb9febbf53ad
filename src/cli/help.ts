/** The text of `mcp-tasks --help`. */
import { EXIT_CODE_HELP } from "./exit-codes.js";

export const USAGE = `Usage:
  mcp-tasks call <url> <tool> [args…] [options]        call a tool on a Streamable HTTP server
  mcp-tasks call <tool> [args…] [options] -- <command> [args…]   … on a stdio server started by <command>
  mcp-tasks watch <taskId|ref> [--server <url>] [options]   follow a task to its end
  mcp-tasks cancel <taskId|ref> [--server <url>]       send tasks/cancel and show the server's final word
  mcp-tasks ls                                         unfinished tasks in the store
  mcp-tasks tools <url> | tools -- <command> [args…]   the tools a server offers
  mcp-tasks types <url> | types -- <command> [args…]   its tools as a TypeScript module exporting \`Tools\`
  mcp-tasks login <url> [--scope '<scopes>'] [--no-browser] [--json] [--timeout <time>]
                                                       authorize with OAuth and store the tokens
  mcp-tasks logout <url>                               forget (and revoke, where the server can) the stored tokens

With your MCP config file (--config <file>, or MCP_TASKS_CONFIG):
  mcp-tasks servers --config <file>                    each server: its state, tasks support, tool count
  mcp-tasks tools --config <file>                      every server's tools, as SERVER/TOOL
  mcp-tasks call SERVER/TOOL [args…] --config <file>   call a tool of one of its servers
  mcp-tasks ls | watch | cancel … --config <file>      tasks of its servers; --server <name> names one of them
  tools, types, login and logout also take a server's name in the file.
  The file is Claude Desktop's, Claude Code's, Cursor's ({"mcpServers": …}) or VS Code's ({"servers": …}):
    macOS    ~/Library/Application Support/Claude/claude_desktop_config.json, ~/.cursor/mcp.json,
             ~/Library/Application Support/Code/User/mcp.json
    Linux    ~/.cursor/mcp.json, ~/.config/Code/User/mcp.json
    Windows  %APPDATA%\\Claude\\claude_desktop_config.json, %USERPROFILE%\\.cursor\\mcp.json,
             %APPDATA%\\Code\\User\\mcp.json
  Servers with "disabled": true are skipped; \${env:NAME} is read from the environment. mcp-tasks reads only the
  file you name: never a .mcp.json or .vscode/mcp.json in the working directory, whose commands a cloned
  repository chooses. \`servers\` and \`tools\` exit 2 when a server is not ready (it is listed as failed).

Tool arguments (merged left to right):
  '{"seconds":5}'      a JSON object
  seconds=5 label=hi   key=value pairs; a value is read as JSON when it parses, else as text
  @args.json           a file holding a JSON object

A task is <taskId> (looked up in the store), a TaskRef as JSON, or @ref.json. A ref from JSON or a file names the
task and its server only: it never starts a command, its unsent input answers are not sent, and with --header the
server must be named with --server too. A task of a stdio server found in the store is reached again only if you
say yes at a terminal to starting its command; otherwise the command line to run (with -- <command>) is printed.
On 2025-11-25 servers a ref also names the HTTP session its task lives in, and watch/cancel send the task's
requests there; a bare task id the store does not know carries no session.

Typed tools:
  mcp-tasks types <url> > src/tools.ts   per tool: its arguments (inputSchema), its structured result
                                         (outputSchema) and its description as TSDoc; TaskClient.connect<Tools>(url)
                                         then accepts only those tool names and arguments
  Needs the optional peer json-schema-to-typescript (npm install --save-dev json-schema-to-typescript). Commit the
  file; in CI, generate it again and fail on a difference (git diff --exit-code) to catch drift.

Authorization:
  --header 'Name: value'   send a header on every request to the server (repeat for more); \${VAR} in a value
                           is read from the environment, so secrets stay out of the command line:
                             --header 'Authorization: Bearer \${MCP_TOKEN}'
  --header @file           'Name: value' lines from a file (# comments and blank lines skipped)
  login <url>              OAuth authorization code flow with PKCE: registers the client when the server offers
                           it, prints the authorization URL (and opens a browser when there is one; only https://,
                           or http:// to this machine), waits for the redirect to a one-time listener on 127.0.0.1
                           (up to --timeout, default 5m); a request there without this login's state gets 400
  login --scope 'a b'      ask for these scopes instead of the ones the server's first challenge names (when a
                           call says the server needs a scope the stored tokens lack)
  login --json             also print {"event":"authorize","url":…} on stdout when the URL is ready, and
                           {"event":"loggedIn",…} at the end, for scripts
  On a terminal, a call that needs a wider scope than the stored tokens have asks once: it prints the
  authorization URL, opens a browser, and carries on when you come back.
  Tokens are kept per server in $XDG_CONFIG_HOME/mcp-tasks/credentials/ (default ~/.config/mcp-tasks/credentials/),
  files readable by you only (0600, directory 0700, narrowed to that when wider); a file that is a symbolic link,
  not yours, or readable by others is refused. Every command uses its server's tokens and refreshes them when they
  expire. A --header Authorization replaces them. Header values are never printed.

Options:
  --json               print NDJSON events (task, update, input, inputUnanswered, note, outcome) on stdout
  --detach             start the task, print its ref and exit (code 7); follow it later with \`watch\`
                       (HTTP servers only: a stdio server stops when this command exits)
  --timeout <time>     stop waiting after 30s, 2m, 500ms… (the task keeps running)
  --server <url>       the server of a task (watch, cancel) when the store does not know it (with --config:
                       a server's name in the file)
  --config <file>      the MCP servers config file to read (default: $MCP_TASKS_CONFIG; no other file is read)
  --store <dir>        the task store (default: $XDG_STATE_HOME/mcp-tasks or the platform's state directory);
                       kept private: directory 0700 (a wider one of yours is narrowed), files 0600
  --no-input           never prompt; input requests get the --unanswered policy (also without a terminal)
  --unanswered <what>  input that cannot be answered: fail (default), decline or cancel
  --allow-sampling     let servers ask for a model completion (you type the reply)
  --roots <dir>        offer <dir> as a root (repeat for more); otherwise roots are not offered
  --header <h>         a header for every request (see Authorization)
  --no-browser         login (and a step-up on a terminal): print the authorization URL only
  --scope '<scopes>'   login: the scopes to ask for, separated by spaces
  -h, --help           print this help

Ctrl-C cancels the task (tasks/cancel) and waits for the server's final word; a second Ctrl-C detaches
and prints how to resume (on a stdio server, which stops with this command, there is nothing to resume). Progress goes to stderr (a live line on a terminal, timestamped lines otherwise),
the result to stdout. Server text never reaches the terminal raw: control characters, escape sequences and bidi
controls are shown as escapes (\\u001b…). A result or --json output piped to a file or program is byte-exact.

${EXIT_CODE_HELP}`;
