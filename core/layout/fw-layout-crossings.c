/* fw-layout-crossings.c: the order within each layer, by barycenter sweeps. */
#include "config.h"

#include <stdlib.h>

#include "fw-layout-private.h"

/* Crossing reduction: barycenter sweeps between adjacent layers, down then up; ties keep the current
 * order, then ids. */
gboolean
fw_layout_reduce_crossings (Layered *g, const Job *job, GCancellable *cancellable, GError **error)
{
  g_autofree SortItem *items = g_new (SortItem, MAX (g->max_layer_len, 1));
  guint passes = job->self->options.crossing_passes;
  guint n_layers = g->n_layers;
  guint *pos = g->pos;

  for (guint p = 0; p < 2 * passes; p++)
    {
      gboolean going_down = p % 2 == 0;
      Adjacency *ref = going_down ? &g->up : &g->down;

      for (guint step = 1; step < n_layers; step++)
        {
          guint l = going_down ? step : n_layers - 1 - step;
          guint n = g->layer_start[l + 1] - g->layer_start[l];
          guint *ids = g->layer_nodes + g->layer_start[l];

          for (guint i = 0; i < n; i++)
            {
              guint v = ids[i];
              guint deg = ref->start[v + 1] - ref->start[v];
              gdouble sum = 0;

              for (guint k = ref->start[v]; k < ref->start[v + 1]; k++)
                sum += pos[ref->list[k]];
              items[i].key = deg > 0 ? sum / deg : pos[v];
              items[i].tie = pos[v];
              items[i].id = v;
            }
          qsort (items, n, sizeof (SortItem), fw_layout_compare_sort_item);
          for (guint i = 0; i < n; i++)
            {
              ids[i] = items[i].id;
              pos[ids[i]] = i;
            }
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      fw_layout_report_progress (job->self, job->context, 0.1 + 0.4 * (p + 1) / (2 * passes), NULL);
    }
  return TRUE;
}
