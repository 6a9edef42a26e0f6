/* fw-host-arena.c: where the values of a scope program live in its arena (fw-host-scope.h): offsets by
 * liveness, greedy by size with best fit, and the check that no two values live at once share a byte. */
#include "config.h"

#include <stdlib.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-host-scope.h"

static gboolean
lives_overlap (const FwArenaBuffer *a, const FwArenaBuffer *b)
{
  return a->first <= b->last && b->first <= a->last;
}

static gboolean
bytes_overlap (const FwArenaBuffer *a, const FwArenaBuffer *b)
{
  return a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
}

static int
by_size_desc (const void *x, const void *y, void *data)
{
  const FwArenaBuffer *buffers = data;
  const FwArenaBuffer *a = &buffers[*(const guint *) x], *b = &buffers[*(const guint *) y];

  if (a->bytes != b->bytes)
    return a->bytes > b->bytes ? -1 : 1;
  /* Ties in the order given, so the same scope gets the same arena. */
  return *(const guint *) x < *(const guint *) y ? -1 : *(const guint *) x > *(const guint *) y;
}

static int
by_offset (const void *x, const void *y)
{
  const FwArenaBuffer *a = *(const FwArenaBuffer *const *) x, *b = *(const FwArenaBuffer *const *) y;

  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

gint64
fw_arena_place (FwArenaBuffer *buffers, guint n)
{
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree guint8 *placed = g_new0 (guint8, MAX (n, 1));
  g_autofree const FwArenaBuffer **live = g_new (const FwArenaBuffer *, MAX (n, 1));
  gint64 size = 0;

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (guint), by_size_desc, buffers);
  for (guint k = 0; k < n; k++)
    {
      FwArenaBuffer *b = &buffers[order[k]];
      guint n_live = 0;
      gint64 at = 0, best = -1, best_waste = G_MAXINT64;

      for (guint j = 0; j < n; j++)
        if (placed[j] && lives_overlap (&buffers[j], b))
          live[n_live++] = &buffers[j];
      qsort (live, n_live, sizeof *live, by_offset);
      /* Gaps between the live buffers, lowest first; the end after the highest when none fits. */
      for (guint j = 0; j < n_live; j++)
        {
          gint64 gap = live[j]->offset - at;

          if (gap >= b->bytes && gap - b->bytes < best_waste)
            {
              best = at;
              best_waste = gap - b->bytes;
            }
          at = MAX (at, live[j]->offset + live[j]->bytes);
        }
      b->offset = best >= 0 ? best : at;
      placed[order[k]] = 1;
      size = MAX (size, b->offset + b->bytes);
    }
  return size;
}

gboolean
fw_arena_check (const FwArenaBuffer *buffers, guint n, gint64 arena_bytes, GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      const FwArenaBuffer *a = &buffers[i];

      if (a->offset < 0 || a->offset + a->bytes > arena_bytes || a->offset % FW_ARENA_ALIGN != 0)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                       _("arena: “%s” is placed outside the arena or off its alignment"), a->value->name);
          return FALSE;
        }
      for (guint j = i + 1; j < n; j++)
        if (lives_overlap (a, &buffers[j]) && bytes_overlap (a, &buffers[j]))
          {
            g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                         _("arena: “%s” and “%s” are live at the same time and share bytes"), a->value->name,
                         buffers[j].value->name);
            return FALSE;
          }
    }
  return TRUE;
}
