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

/* From cmd_catch_interrupts on, SIGINT and SIGTERM set the flag that
 * cmd_interrupted returns (app/signals.c). */
void cmd_catch_interrupts(void);
int cmd_interrupted(void);

#endif
