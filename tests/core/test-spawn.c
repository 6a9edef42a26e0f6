/* Running children (core/io/fw-spawn.c): what they print comes back, the working folder and the closed
 * descriptors hold, a missing program is a clear error, and, the reason the file exists, children can be
 * started from several threads while others are inside threaded OpenBLAS calls. With fork (g_spawn_sync)
 * that last case deadlocks within seconds: OpenBLAS's fork handler stops its thread pool under a running
 * product, which then waits forever for its workers. */
#include "config.h"

#include <cblas.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "io/fw-spawn.h"

static void
test_output (void)
{
  const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (fw_spawn_sync (NULL, argv, FW_SPAWN_DEFAULT, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (out, ==, "out\n");
  g_assert_cmpstr (err, ==, "err\n");
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 3);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
}

/* Larger than a pipe's buffer on both streams at once: reading one to its end first would stall the child. */
static void
test_large_output (void)
{
  const char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo 0123456789; echo abcdefghij >&2; "
                         "i=$((i+1)); done", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_true (fw_spawn_sync (NULL, argv, FW_SPAWN_DEFAULT, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpuint (strlen (out), ==, 20000 * 11);
  g_assert_cmpuint (strlen (err), ==, 20000 * 11);
}

static void
test_cwd_and_null (void)
{
  g_autofree char *dir = g_dir_make_tmp ("fw-spawn-XXXXXX", NULL);
  g_autofree char *real = realpath (dir, NULL);
  const char *argv[] = { "/bin/sh", "-c", "pwd; echo hidden >&2", NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_nonnull (real);
  g_assert_true (fw_spawn_sync (dir, argv, FW_SPAWN_STDERR_TO_NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (g_strstrip (out), ==, real);
  g_rmdir (dir);
}

/* A descriptor we left inheritable must not reach the child (the compiler would hold our files open). */
static void
test_closes_descriptors (void)
{
  int fd = open ("/dev/null", O_RDONLY);
  g_autofree char *script = g_strdup_printf ("if [ -e /proc/self/fd/%d ]; then echo open; else echo closed; fi", fd);
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_cmpint (fd, >, 2);
  g_assert_true (fw_spawn_sync (NULL, argv, FW_SPAWN_DEFAULT, &out, NULL, &status, &error));
  g_assert_no_error (error);
  close (fd);
  g_assert_cmpstr (out, ==, "closed\n");
}

static void
test_missing (void)
{
  const char *argv[] = { "/nonexistent/fw-no-such-compiler", "--version", NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_false (fw_spawn_sync (NULL, argv, FW_SPAWN_DEFAULT, &out, NULL, &status, &error));
  g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "/nonexistent/fw-no-such-compiler"));
  g_assert_null (out);
}

typedef struct
{
  GMutex lock;
  GCond  cond;
  gint   spawners_left;
  gint   blas_left;
  gint   stop;
  gint   failures;
} Race;

static gpointer
blas_loop (gpointer data)
{
  Race *race = data;
  enum { N = 160 };
  g_autofree float *a = g_new0 (float, N * N), *b = g_new0 (float, N * N), *c = g_new0 (float, N * N);

  while (!g_atomic_int_get (&race->stop))
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
  g_mutex_lock (&race->lock);
  race->blas_left--;
  g_cond_signal (&race->cond);
  g_mutex_unlock (&race->lock);
  return NULL;
}

static gpointer
spawn_loop (gpointer data)
{
  Race *race = data;
  const char *argv[] = { "/bin/true", NULL };

  for (int i = 0; i < 150; i++)
    {
      int status = -1;
      if (!fw_spawn_sync (NULL, argv, FW_SPAWN_STDERR_TO_NULL, NULL, NULL, &status, NULL) ||
          !g_spawn_check_wait_status (status, NULL))
        g_atomic_int_inc (&race->failures);
    }
  g_mutex_lock (&race->lock);
  race->spawners_left--;
  g_cond_signal (&race->cond);
  g_mutex_unlock (&race->lock);
  return NULL;
}

static void
test_beside_blas (void)
{
  static Race race;
  GThread *blas[2], *spawners[2];
  gint64 deadline = g_get_monotonic_time () + 120 * G_TIME_SPAN_SECOND;
  gboolean done = TRUE;

  /* The deadlock needs OpenBLAS's own thread pool; a machine with one core would not start it. */
  openblas_set_num_threads (2);
  race.spawners_left = G_N_ELEMENTS (spawners);
  race.blas_left = G_N_ELEMENTS (blas);
  for (guint i = 0; i < G_N_ELEMENTS (blas); i++)
    blas[i] = g_thread_new ("blas", blas_loop, &race);
  for (guint i = 0; i < G_N_ELEMENTS (spawners); i++)
    spawners[i] = g_thread_new ("spawn", spawn_loop, &race);
  /* Either side can be the one left stuck: a fork that never returns, or a product whose workers the fork
     handler stopped. */
  g_mutex_lock (&race.lock);
  while (race.spawners_left > 0 && done)
    done = g_cond_wait_until (&race.cond, &race.lock, deadline) || race.spawners_left == 0;
  g_atomic_int_set (&race.stop, 1);
  while (race.blas_left > 0 && done)
    done = g_cond_wait_until (&race.cond, &race.lock, deadline) || race.blas_left == 0;
  g_mutex_unlock (&race.lock);
  if (!done)
    {
      /* The stuck threads cannot be joined, and exit's handlers would wait on them: say so and leave. */
      printf ("not ok - children started beside OpenBLAS products deadlocked (no progress in 120 s)\n");
      fflush (stdout);
      _exit (1);
    }
  for (guint i = 0; i < G_N_ELEMENTS (spawners); i++)
    g_thread_join (spawners[i]);
  for (guint i = 0; i < G_N_ELEMENTS (blas); i++)
    g_thread_join (blas[i]);
  g_assert_cmpint (race.failures, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/io/spawn/output", test_output);
  g_test_add_func ("/core/io/spawn/large-output", test_large_output);
  g_test_add_func ("/core/io/spawn/cwd-and-null", test_cwd_and_null);
  g_test_add_func ("/core/io/spawn/closes-descriptors", test_closes_descriptors);
  g_test_add_func ("/core/io/spawn/missing", test_missing);
  g_test_add_func ("/core/io/spawn/beside-blas", test_beside_blas);
  return g_test_run ();
}
