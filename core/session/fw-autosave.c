/* fw-autosave.c: one worker writes the newest queued session text; the main thread never waits on a disk
 * unless it asks to. */
#include "config.h"

#include "fw-autosave.h"
#include "io/fw-file-write.h"

/* Who hears of a failed write; shared with the failures on their way to the main context, which may arrive
 * after the autosave is freed. Atomically refcounted. */
typedef struct
{
  GWeakRef          owner;
  FwAutosaveFailed  failed;
} Listener;

struct _FwAutosave
{
  Listener         *listener;
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
  Listener *listener;
  GError   *error;
} Failure;

static void
listener_clear (gpointer data)
{
  g_weak_ref_clear (&((Listener *) data)->owner);
}

static void
failure_free (gpointer data)
{
  Failure *f = data;

  g_atomic_rc_box_release_full (f->listener, listener_clear);
  g_error_free (f->error);
  g_free (f);
}

/* In the main context: the owner, if it is still there, is referenced here and never by the worker, so it is
 * never finalized (and never flushes) in the worker. */
static gboolean
report_failure (gpointer data)
{
  Failure *f = data;
  g_autoptr(GObject) owner = g_weak_ref_get (&f->listener->owner);

  if (owner != NULL)
    f->listener->failed (owner, f->error);
  return G_SOURCE_REMOVE;
}

static void
post_failure (FwAutosave *self, GMainContext *context, GError *error)
{
  Failure *f = g_new0 (Failure, 1);
  GSource *source = g_idle_source_new ();

  f->listener = g_atomic_rc_box_acquire (self->listener);
  f->error = error;
  /* An idle source, not g_main_context_invoke: that would run the handler here, in the worker, whenever the
   * context happens to be free (the main thread waiting in a flush). */
  g_source_set_callback (source, report_failure, f, failure_free);
  g_source_set_name (source, "[fusion-workbench] autosave failure");
  g_source_attach (source, context);
  g_source_unref (source);
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
          if (self->listener->failed != NULL)
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

  self->listener = g_atomic_rc_box_new0 (Listener);
  g_weak_ref_init (&self->listener->owner, owner);
  self->listener->failed = failed;
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
  g_atomic_rc_box_release_full (self->listener, listener_clear);
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
