/* Output files: how every file starling writes reaches its path.
 *
 * A user's path is resolved first: a symbolic link is followed to the file
 * it names (the link itself stays), and what is there decides the way:
 *
 *   regular file, or nothing yet   written to a temporary file beside it,
 *                                  renamed over it on commit, so the file
 *                                  appears whole or not at all; an existing
 *                                  file keeps its mode (and, for root, its
 *                                  owner)
 *   FIFO, character device, "-"    streamed to directly; nothing is renamed
 *                                  or removed. "-" and /dev/stdout are
 *                                  standard output, /dev/stderr standard
 *                                  error, /dev/fd/N descriptor N (written
 *                                  where it stands, never reopened from
 *                                  its start)
 *   folder, socket, block device   refused
 *
 * The overwrite rule (astropy's): an existing regular file that this
 * process did not write is an error unless SL_OUT_OVERWRITE is given or
 * sl_out_set_overwrite(1) was called (the CLI's --overwrite). A file whose
 * mode has no write bit, or that the user cannot write, is refused even
 * then. sl_out_check applies every rule without writing anything, so that
 * a front end can check each output before the first step of work.
 *
 * Cancellation (cancel.h): commit refuses to rename while a cancellation
 * is pending, so a write interrupted by a signal leaves the old file as it
 * was; writers poll sl_out_poll between rows. */
#ifndef STARLING_OUTPUT_H
#define STARLING_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

#include "starling/status.h"

SL_EXTERN_C_BEGIN

enum {
    SL_OUT_OVERWRITE = 1u, /* replace an existing file this process did not write */
    /* The writer opens the file by name (HDF5, cfitsio, PLplot): open makes
     * the temporary file and leaves f NULL; the writer writes `tmp`. A
     * stream destination then gets the temporary's bytes on commit. */
    SL_OUT_BY_NAME = 2u
};

typedef struct sl_out {
    FILE *f;     /* where to write (NULL with SL_OUT_BY_NAME) */
    char *path;  /* the user's path, for messages */
    char *dest;  /* where the bytes go: the path, or the file its links name */
    char *tmp;   /* the temporary file, or NULL when streaming directly */
    int stream;  /* dest is a FIFO, a character device or a descriptor */
    int fd;      /* the descriptor a stream is a copy of ("-": 1), or -1 */
} sl_out;

/* Every rule open applies, without creating anything: SL_ERR_IO (or
 * SL_ERR_ARG for an empty path) with a message naming `path`, what is
 * there and what to do. */
sl_status sl_out_check(const char *path, unsigned flags);

/* Opens path for writing as described above. On error nothing is left and
 * *o is zeroed. */
sl_status sl_out_open(sl_out *o, const char *path, unsigned flags);

/* Finishes the file: flushes it to disk, renames the temporary file over
 * the destination (or copies it into the stream) and records the file as
 * this process's. Refuses, removing the temporary file, when the writes
 * failed or a cancellation is pending. *o is zeroed either way. */
sl_status sl_out_commit(sl_out *o);

/* Drops the file: closes it and removes the temporary file, never
 * anything else. A no-op on a zeroed sl_out. */
void sl_out_abort(sl_out *o);

/* SL_ERR_CANCELLED naming the file when a cancellation is pending; for
 * writers' loops (every few thousand rows). */
sl_status sl_out_poll(const sl_out *o);

/* The process-wide default of SL_OUT_OVERWRITE (the CLI's --overwrite). */
void sl_out_set_overwrite(int on);

/* 1 when this process wrote the file at path (through sl_out_commit). */
int sl_out_made_here(const char *path);

SL_EXTERN_C_END

#endif
