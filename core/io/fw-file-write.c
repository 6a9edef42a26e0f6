#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-file-write.h"

static gboolean
write_in_place (const char *path, const guint8 *data, gsize len, GError **error)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot write: %s"), path, g_strerror (saved));
      return FALSE;
    }
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;
          close (fd);
          g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot write: %s"), path, g_strerror (saved));
          return FALSE;
        }
      data += n;
      len -= n;
    }
  close (fd);
  return TRUE;
}

gboolean
fw_file_write (const char *path, gconstpointer data, gssize len, GError **error)
{
  GError *local = NULL;
  struct stat st;
  gsize size = len < 0 ? strlen (data) : (gsize) len;

  if (stat (path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: is a folder"), path);
          return FALSE;
        }
      return write_in_place (path, data, size, error);
    }
  if (!g_file_set_contents_full (path, data, size, G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, &local))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot write: %s"), path, local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}
