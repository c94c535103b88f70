/* SIGINT and SIGTERM for the commands that run until stopped (send, recv,
 * node): a flag they poll, instead of the default end of the process. */
#define _POSIX_C_SOURCE 200809L /* sigaction */

#include <signal.h>
#include <string.h>

#include "commands.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

void cmd_catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cmd_interrupted(void)
{
    return interrupted != 0;
}
