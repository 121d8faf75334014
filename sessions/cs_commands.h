/* cs_commands.h — the command table (sessions/ only). Commands, their keys,
 * defaults and help text live in one table, from which the parser's key
 * checks, tab completion and `help` all come. What one spec says is read
 * with cs_cmd_spec.h; the table (commands.c) lists every module's group. */
#ifndef CS_COMMANDS_H
#define CS_COMMANDS_H

#include <stddef.h>

#include "cs_cmd_spec.h"

size_t cs_command_count(void);
const cs_cmd_spec *cs_command_at(size_t i);
const cs_cmd_spec *cs_command_find(const char *name);
/* 1 when command i is the first of its topic (topics in order of first
 * appearance: `help`, the man page). */
int cs_command_topic_first(size_t i);

#endif
