/* fw-progress.c: progress reported from worker threads, applied in the owner's main context. */
#include "config.h"

#include "fw-progress.h"

typedef struct
{
  GObject    *owner;
  FwProgress *progress;
  gdouble     fraction;
  char       *message;
  gboolean    begin;
} Update;

static gboolean
apply_update (gpointer data)
{
  Update *u = data;
  FwProgress *p = u->progress;

  /* From here on a new report queues a new update; this one's values are final. */
  g_mutex_lock (&p->lock);
  if (p->pending == u)
    p->pending = NULL;
  g_mutex_unlock (&p->lock);

  if (u->begin ? u->fraction != p->fraction : u->fraction > p->fraction)
    {
      p->fraction = u->fraction;
      g_object_notify_by_pspec (u->owner, p->fraction_pspec);
    }
  if (u->message != NULL && g_strcmp0 (u->message, p->message) != 0)
    {
      g_free (p->message);
      p->message = g_steal_pointer (&u->message);
      g_object_notify_by_pspec (u->owner, p->message_pspec);
    }
  return G_SOURCE_REMOVE;
}

static void
update_free (gpointer data)
{
  Update *u = data;

  /* A source destroyed without running (its context went away) must not stay pending. */
  g_mutex_lock (&u->progress->lock);
  if (u->progress->pending == u)
    u->progress->pending = NULL;
  g_mutex_unlock (&u->progress->lock);
  g_object_unref (u->owner);
  g_free (u->message);
  g_free (u);
}

static void
post (GObject *owner, FwProgress *progress, GMainContext *context, gdouble fraction, const char *message,
      gboolean begin)
{
  Update *u;

  if (context != NULL)
    {
      g_mutex_lock (&progress->lock);
      u = progress->pending;
      if (u != NULL)
        {
          if (begin)
            {
              u->begin = TRUE;
              u->fraction = 0.0;
            }
          else
            u->fraction = MAX (u->fraction, CLAMP (fraction, 0.0, 1.0));
          if (message != NULL)
            {
              g_free (u->message);
              u->message = g_strdup (message);
            }
          g_mutex_unlock (&progress->lock);
          return;
        }
      g_mutex_unlock (&progress->lock);
    }
  u = g_new0 (Update, 1);
  /* The reference keeps the owner, and so the FwProgress inside it, alive until the update is applied. */
  u->owner = g_object_ref (owner);
  u->progress = progress;
  u->fraction = CLAMP (fraction, 0.0, 1.0);
  u->message = g_strdup (message);
  u->begin = begin;
  if (context != NULL)
    {
      /* Not g_main_context_invoke: a worker whose thread-default context is the same global default would
       * acquire it while the main loop is not running and notify from the worker thread. */
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, apply_update, u, update_free);
      g_source_set_static_name (source, "[fusion-workbench] progress");
      g_mutex_lock (&progress->lock);
      progress->pending = u;
      g_source_attach (source, context);
      g_mutex_unlock (&progress->lock);
      g_source_unref (source);
    }
  else
    {
      /* Blocking runs report from every worker thread (the compile pool's, in parallel): the fraction and
       * the message they replace must not be freed twice. */
      g_mutex_lock (&progress->apply_lock);
      apply_update (u);
      g_mutex_unlock (&progress->apply_lock);
      update_free (u);
    }
}

void
fw_progress_pspecs (GParamSpec **fraction, GParamSpec **message)
{
  *fraction = g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  *message = g_param_spec_string ("message", NULL, NULL, NULL,
                                  G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

gboolean
fw_progress_get_property (const FwProgress *progress, GParamSpec *pspec, GValue *value)
{
  if (pspec == progress->fraction_pspec)
    g_value_set_double (value, progress->fraction);
  else if (pspec == progress->message_pspec)
    g_value_set_string (value, progress->message);
  else
    return FALSE;
  return TRUE;
}

void
fw_progress_init (FwProgress *progress, GParamSpec *fraction_pspec, GParamSpec *message_pspec)
{
  progress->fraction = 0.0;
  progress->message = NULL;
  progress->fraction_pspec = fraction_pspec;
  progress->message_pspec = message_pspec;
  g_mutex_init (&progress->lock);
  g_mutex_init (&progress->apply_lock);
  progress->pending = NULL;
}

void
fw_progress_clear (FwProgress *progress)
{
  g_clear_pointer (&progress->message, g_free);
  g_mutex_clear (&progress->lock);
  g_mutex_clear (&progress->apply_lock);
}

void
fw_progress_report (GObject *owner, FwProgress *progress, GMainContext *context, gdouble fraction,
                    const char *message)
{
  post (owner, progress, context, fraction, message, FALSE);
}

void
fw_progress_begin (GObject *owner, FwProgress *progress, GMainContext *context, const char *message)
{
  post (owner, progress, context, 0.0, message, TRUE);
}
