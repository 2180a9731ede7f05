// Package shell splits a shell command line into the simple commands a user
// must approve one by one, and finds the files those commands read and
// write (FileAccesses, WritesFiles) so that permission rules for files can
// apply to them.
//
// The line is parsed with mvdan.cc/sh's bash parser. Every simple command
// that would run is returned as the exact source text the user approves,
// with its redirections (and here-document bodies) attached: commands joined
// by &&, ||, |, ;, & and newlines, commands inside subshells, blocks,
// functions, loops and conditionals, and commands inside $(...), backticks
// and process substitution.
//
// Commands that run other commands are looked into as well:
//
//   - wrappers (env, sudo, nohup, timeout, xargs, nice, exec, command,
//     find -exec, ...): the wrapped command is returned in addition to the
//     whole command, so a rule for the wrapped program applies to it;
//   - shells given a literal script (bash -c '...', sh -c, su -c, eval
//     with literal words, trap and alias bodies, a shell reading a literal
//     here-document or here-string): the script is split and its commands
//     are returned in addition to the whole command.
//
// Anything that could hide execution and cannot be split safely makes the
// whole line one opaque command (Result.Opaque): a line that does not parse,
// a command name that is not a plain word ($CMD, "$(...)", quoted or escaped
// names), a shell script built at run time (bash -c "$x", eval "$x",
// alias x="$y"), a shell reading its script from a pipe, a file or a
// descriptor (curl | sh, source <(...)), env -S, a non-POSIX shell (fish -c),
// or nesting deeper than a fixed limit. An opaque line must be asked as a whole and never
// auto-allowed by a rule.
package shell
