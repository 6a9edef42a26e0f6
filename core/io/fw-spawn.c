#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "fw-spawn.h"

static void
close_pair (int p[2])
{
  for (int i = 0; i < 2; i++)
    if (p[i] >= 0)
      {
        close (p[i]);
        p[i] = -1;
      }
}

/* Drains both pipes to their ends together: a child that fills one while we block on the other would stall. */
static gboolean
read_both (int fds[2], GString *bufs[2], GError **error)
{
  int open_fds = (fds[0] >= 0) + (fds[1] >= 0);

  while (open_fds > 0)
    {
      struct pollfd p[2];
      nfds_t n = 0;
      int which[2];

      for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
          {
            p[n].fd = fds[i];
            p[n].events = POLLIN;
            p[n].revents = 0;
            which[n++] = i;
          }
      if (poll (p, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_READ, _("cannot read the output of a child process: %s"),
                       g_strerror (errno));
          return FALSE;
        }
      for (nfds_t k = 0; k < n; k++)
        {
          char chunk[8192];
          ssize_t got;
          int i = which[k];

          if (p[k].revents == 0)
            continue;
          got = read (fds[i], chunk, sizeof chunk);
          if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
          if (got < 0)
            {
              g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_READ,
                           _("cannot read the output of a child process: %s"), g_strerror (errno));
              return FALSE;
            }
          if (got == 0)
            {
              close (fds[i]);
              fds[i] = -1;
              open_fds--;
              continue;
            }
          if (bufs[i] != NULL)
            g_string_append_len (bufs[i], chunk, got);
        }
    }
  return TRUE;
}

static gboolean
wait_child (pid_t pid, int *wait_status, GError **error)
{
  int status = 0;

  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      {
        g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, _("cannot wait for a child process: %s"),
                     g_strerror (errno));
        return FALSE;
      }
  if (wait_status != NULL)
    *wait_status = status;
  return TRUE;
}

/* The child's side: /dev/null in, the pipes (or /dev/null) out, everything above stderr closed. */
static gboolean
plan_actions (posix_spawn_file_actions_t *fa, const char *cwd, int out[2], int err[2], FwSpawnFlags flags)
{
  gboolean ok = posix_spawn_file_actions_addopen (fa, 0, "/dev/null", O_RDONLY, 0) == 0 &&
                posix_spawn_file_actions_adddup2 (fa, out[1], 1) == 0;

  if (flags & FW_SPAWN_STDERR_TO_NULL)
    ok = ok && posix_spawn_file_actions_addopen (fa, 2, "/dev/null", O_WRONLY, 0) == 0;
  else
    ok = ok && posix_spawn_file_actions_adddup2 (fa, err[1], 2) == 0;
  ok = ok && posix_spawn_file_actions_addclosefrom_np (fa, 3) == 0;
  if (cwd != NULL)
    ok = ok && posix_spawn_file_actions_addchdir_np (fa, cwd) == 0;
  return ok;
}

gboolean
fw_spawn_sync (const char *cwd, const char *const *argv, FwSpawnFlags flags, char **standard_output,
               char **standard_error, int *wait_status, GError **error)
{
  int out[2] = { -1, -1 }, err[2] = { -1, -1 };
  posix_spawn_file_actions_t fa;
  GString *bufs[2] = { NULL, NULL };
  pid_t pid = 0;
  int rc;
  gboolean ok;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, FALSE);

  if (pipe2 (out, O_CLOEXEC) < 0 || (!(flags & FW_SPAWN_STDERR_TO_NULL) && pipe2 (err, O_CLOEXEC) < 0))
    {
      int saved = errno;
      close_pair (out);
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, _("cannot create a pipe for “%s”: %s"), argv[0],
                   g_strerror (saved));
      return FALSE;
    }
  posix_spawn_file_actions_init (&fa);
  if (!plan_actions (&fa, cwd, out, err, flags))
    rc = ENOMEM;
  else
    rc = posix_spawn (&pid, argv[0], &fa, NULL, (char *const *) argv, environ);
  posix_spawn_file_actions_destroy (&fa);
  /* Our copies of the write ends go, so the reads below end when the child (and its children) exit. */
  close (out[1]);
  out[1] = -1;
  if (err[1] >= 0)
    close (err[1]);
  err[1] = -1;
  if (rc != 0)
    {
      close_pair (out);
      close_pair (err);
      GSpawnError code = rc == ENOENT ? G_SPAWN_ERROR_NOENT : G_SPAWN_ERROR_FAILED;

      if (cwd != NULL)
        g_set_error (error, G_SPAWN_ERROR, code, _("cannot run “%s” in “%s”: %s"), argv[0], cwd, g_strerror (rc));
      else
        g_set_error (error, G_SPAWN_ERROR, code, _("cannot run “%s”: %s"), argv[0], g_strerror (rc));
      return FALSE;
    }
  bufs[0] = standard_output ? g_string_new (NULL) : NULL;
  bufs[1] = standard_error ? g_string_new (NULL) : NULL;
  {
    int fds[2] = { out[0], err[0] };
    ok = read_both (fds, bufs, error);
    for (int i = 0; i < 2; i++)
      if (fds[i] >= 0)
        close (fds[i]);
  }
  /* Reaped even after a read error, so no zombie is left behind. */
  ok = wait_child (pid, wait_status, ok ? error : NULL) && ok;
  if (standard_output)
    *standard_output = ok ? g_string_free (bufs[0], FALSE) : (g_string_free (bufs[0], TRUE), NULL);
  if (standard_error)
    *standard_error = ok ? g_string_free (bufs[1], FALSE) : (g_string_free (bufs[1], TRUE), NULL);
  return ok;
}
