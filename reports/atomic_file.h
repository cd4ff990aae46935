/* Writing a file all at once: output goes to a new temporary file beside
 * the target, which replaces the target only when everything was written,
 * so a failed or interrupted write never leaves a half-written report or
 * export where a good one was (rename within one folder is atomic). */
#ifndef SKYTUNE_ATOMIC_FILE_H
#define SKYTUNE_ATOMIC_FILE_H

#include <stdio.h>

#include "error.h"

typedef struct atomic_file {
    FILE *f;        /* write here */
    char *path;     /* the target */
    char *tmp;      /* the temporary file beside it */
} atomic_file;

/* Create the temporary file (permissions as a new file gets: 0666 less the
 * umask). */
int atomic_file_open(atomic_file *af, const char *path, skytune_error *err);
/* Close and rename onto the target; on any write error remove the
 * temporary file and leave the target as it was. Frees af either way. */
int atomic_file_commit(atomic_file *af, skytune_error *err);
/* Remove the temporary file and free af; the target is untouched. */
void atomic_file_abort(atomic_file *af);

#endif
