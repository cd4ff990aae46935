/* `skytune worker ROLE`: a measuring or compile worker, started by the
 * engine itself with its end of the pipe on descriptor 3. Not for users;
 * `skytune --help` does not list it. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "worker_main.h"

int cmd_worker(int argc, char **argv)
{
    int role = argc == 1 ? worker_role_parse(argv[0]) : -1;
    if (role < 0) {
        cli_error("worker: the engine starts workers as `skytune worker measure|compile`; "
                  "it is not a command for users");
        return EXIT_USAGE;
    }
    if (fcntl(WORKER_FD, F_GETFD) < 0) {
        cli_error("worker: no pipe to the engine on descriptor %d", WORKER_FD);
        return EXIT_USAGE;
    }
    return worker_main((worker_role)role, WORKER_FD);
}
