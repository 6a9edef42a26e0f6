/* fw-autosave.c: one worker writes the newest queued session text; the main thread never waits on a disk
 * unless it asks to. */
#include "config.h"

#include "fw-autosave.h"
#include "io/fw-file-write.h"

struct _FwAutosave
{
  GWeakRef          owner;
  FwAutosaveFailed  failed;
  GThreadPool      *pool;      /* one thread: writes never overlap */
  GMutex            lock;
  GCond             idle;
  /* Under lock: */
  char             *path;      /* queued, not yet taken by the worker */
  char             *text;
  GMainContext     *context;   /* where a failure of the queued text is reported */
  gboolean          busy;      /* the worker has been pushed and has not yet run dry */
  guint             n_writes;
};

typedef struct
{
  GWeakRef          owner;
  FwAutosaveFailed  failed;
  GError           *error;
} Failure;

static void
failure_free (gpointer data)
{
  Failure *f = data;

  g_weak_ref_clear (&f->owner);
  g_error_free (f->error);
  g_free (f);
}

static gboolean
report_failure (gpointer data)
{
  Failure *f = data;
  g_autoptr(GObject) owner = g_weak_ref_get (&f->owner);

  if (owner != NULL)
    f->failed (owner, f->error);
  return G_SOURCE_REMOVE;
}

static void
post_failure (FwAutosave *self, GMainContext *context, GError *error)
{
  Failure *f = g_new0 (Failure, 1);
  g_autoptr(GObject) owner = g_weak_ref_get (&self->owner);

  g_weak_ref_init (&f->owner, owner);
  f->failed = self->failed;
  f->error = error;
  g_main_context_invoke_full (context, G_PRIORITY_DEFAULT, report_failure, f, failure_free);
}

/* Runs until nothing is queued: a text queued while one is being written is the next one written. */
static void
worker (gpointer data, gpointer user_data)
{
  FwAutosave *self = user_data;

  for (;;)
    {
      g_autofree char *path = NULL, *text = NULL;
      g_autoptr(GMainContext) context = NULL;
      GError *error = NULL;

      g_mutex_lock (&self->lock);
      if (self->text == NULL)
        {
          self->busy = FALSE;
          g_cond_broadcast (&self->idle);
          g_mutex_unlock (&self->lock);
          return;
        }
      path = g_steal_pointer (&self->path);
      text = g_steal_pointer (&self->text);
      context = g_steal_pointer (&self->context);
      g_mutex_unlock (&self->lock);

      if (!fw_file_write (path, text, -1, &error))
        {
          g_debug ("autosave: %s", error->message);
          if (self->failed != NULL)
            post_failure (self, context, error);
          else
            g_error_free (error);
        }
      g_mutex_lock (&self->lock);
      self->n_writes++;
      g_mutex_unlock (&self->lock);
    }
}

FwAutosave *
fw_autosave_new (GObject *owner, FwAutosaveFailed failed)
{
  FwAutosave *self = g_new0 (FwAutosave, 1);

  g_weak_ref_init (&self->owner, owner);
  self->failed = failed;
  g_mutex_init (&self->lock);
  g_cond_init (&self->idle);
  return self;
}

static void
drop_queued (FwAutosave *self)
{
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);
}

void
fw_autosave_free (FwAutosave *self)
{
  if (self == NULL)
    return;
  fw_autosave_wait (self);
  if (self->pool != NULL)
    g_thread_pool_free (self->pool, FALSE, TRUE);
  drop_queued (self);
  g_weak_ref_clear (&self->owner);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->idle);
  g_free (self);
}

void
fw_autosave_queue (FwAutosave *self, const char *path, char *text)
{
  gboolean start;

  g_return_if_fail (self != NULL && path != NULL && text != NULL);

  g_mutex_lock (&self->lock);
  drop_queued (self);
  self->path = g_strdup (path);
  self->text = text;
  self->context = g_main_context_ref_thread_default ();
  start = !self->busy;
  self->busy = TRUE;
  g_mutex_unlock (&self->lock);
  if (!start)
    return;
  if (self->pool == NULL)
    self->pool = g_thread_pool_new (worker, self, 1, FALSE, NULL);
  g_thread_pool_push (self->pool, GINT_TO_POINTER (1), NULL);
}

void
fw_autosave_wait (FwAutosave *self)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->lock);
  while (self->busy)
    g_cond_wait (&self->idle, &self->lock);
  g_mutex_unlock (&self->lock);
}

gboolean
fw_autosave_write_now (FwAutosave *self, const char *path, char *text, GError **error)
{
  g_autofree char *owned = text;
  gboolean ok;

  g_return_val_if_fail (self != NULL, FALSE);

  g_mutex_lock (&self->lock);
  drop_queued (self);
  while (self->busy)
    g_cond_wait (&self->idle, &self->lock);
  g_mutex_unlock (&self->lock);
  ok = fw_file_write (path, owned, -1, error);
  g_mutex_lock (&self->lock);
  self->n_writes++;
  g_mutex_unlock (&self->lock);
  return ok;
}

guint
fw_autosave_get_n_writes (FwAutosave *self)
{
  guint n;

  g_return_val_if_fail (self != NULL, 0);
  g_mutex_lock (&self->lock);
  n = self->n_writes;
  g_mutex_unlock (&self->lock);
  return n;
}
