/* fw-folder-swap.c: a folder replaced as a whole: staging beside it, then one exchanging rename. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-folder-swap.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

void
fw_folder_remove_tree (const char *path)
{
  struct stat st;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (lstat (path, &st) != 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      fw_folder_remove_tree (child);
    }
  g_rmdir (path);
}

/* ".NAME.tmp-" for dir ".../NAME". */
static char *
staging_prefix (const char *dir)
{
  g_autofree char *base = g_path_get_basename (dir);

  return g_strconcat (".", base, ".tmp-", NULL);
}

/* Staging folders of writers that were killed: nobody will swap them in any more. */
static void
remove_stale (const char *parent, const char *prefix)
{
  g_autoptr(GDir) dir = g_dir_open (parent, 0, NULL);
  const char *name;
  g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func (g_free);

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, prefix) && strlen (name) == strlen (prefix) + 6)
      g_ptr_array_add (stale, g_build_filename (parent, name, NULL));
  for (guint i = 0; i < stale->len; i++)
    fw_folder_remove_tree (g_ptr_array_index (stale, i));
}

static void
sync_folder (const char *path)
{
  int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

/* An empty ".NAME.tmp-XXXXXX" beside dir, or NULL with errno set. */
static char *
new_staging (const char *dir)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *prefix = staging_prefix (dir);
  g_autofree char *template = g_strconcat (prefix, "XXXXXX", NULL);
  char *staging = g_build_filename (parent, template, NULL);

  if (g_mkdtemp_full (staging, 0755) == NULL)
    {
      int saved = errno;
      g_free (staging);
      errno = saved;
      return NULL;
    }
  return staging;
}

char *
fw_folder_stage (const char *dir, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *prefix = staging_prefix (dir);
  char *staging;
  struct stat st;

  if (stat (dir, &st) == 0 && !S_ISDIR (st.st_mode))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: exists and is not a folder"), dir);
      return NULL;
    }
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot create the folder: %s"), parent, g_strerror (saved));
      return NULL;
    }
  remove_stale (parent, prefix);
  staging = new_staging (dir);
  if (staging == NULL)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot create a staging folder: %s"), parent,
                   g_strerror (saved));
      return NULL;
    }
  return staging;
}

gboolean
fw_folder_commit (const char *staging, const char *dir, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *aside = NULL;
  struct stat st;
  int saved;

  sync_folder (staging);
  if (lstat (dir, &st) != 0)
    {
      if (rename (staging, dir) == 0)
        {
          sync_folder (parent);
          return TRUE;
        }
      goto fail;
    }
  /* One step: whoever looks, at any moment, sees the old folder or the new one. */
  if (renameat2 (AT_FDCWD, staging, AT_FDCWD, dir, RENAME_EXCHANGE) == 0)
    {
      sync_folder (parent);
      /* staging now holds the old contents. */
      fw_folder_remove_tree (staging);
      return TRUE;
    }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    goto fail;
  /* A file system that cannot exchange names: two renames, with a moment in between where dir is missing
   * and the old contents wait beside it under a staging name (removed by the next writer). The name is
   * an empty folder of its own, which renaming dir onto replaces. */
  aside = new_staging (dir);
  if (aside == NULL)
    goto fail;
  if (rename (dir, aside) != 0)
    {
      saved = errno;
      g_rmdir (aside);
      errno = saved;
      goto fail;
    }
  if (rename (staging, dir) != 0)
    {
      saved = errno;
      rename (aside, dir);
      errno = saved;
      goto fail;
    }
  sync_folder (parent);
  fw_folder_remove_tree (aside);
  return TRUE;

fail:
  saved = errno;
  g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot put the new folder in place: %s"), dir,
               g_strerror (saved));
  fw_folder_remove_tree (staging);
  return FALSE;
}
