/* The subcommands of the xsflow program. Each lives in its own cmd_*.c. */
#ifndef XSF_APP_COMMANDS_H
#define XSF_APP_COMMANDS_H

typedef struct xsf_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} xsf_command;

int cmd_info(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_recv(int argc, char **argv);
int cmd_bpc_train(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_node(int argc, char **argv); /* with XSF_HAVE_NMOS */

/* BPC-PaCo's front end (bpc_params) in `bpc-train` (cmd_bpc_train.c), as the
 * encoder's knobs take them: CLI_CALL parsers of an option table
 * (xsf_cli.h) into o->dst (an int of levels; with o->value, "all" is -1; a float step). */
struct cli_option;
int bpc_option_levels(void *ctx, const struct cli_option *o, const char *value);
int bpc_option_qstep(void *ctx, const struct cli_option *o, const char *value);
/* "53|97" (or "5/3|9/7") to bpc_filter. */
extern const int bpc_filter_values[4];
/* BPC-PaCo's own info (app/cmd_bpc.c): `info` of a file that starts with a
 * BPC-PaCo codestream hands its whole command line to it (argv[0] the
 * command name). */
int bpc_cli_info(int argc, char **argv);

#endif
