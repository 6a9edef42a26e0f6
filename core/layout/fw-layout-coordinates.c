/* fw-layout-coordinates.c: the x of every unit and dummy: widths from the labels, then sweeps that pull
 * each layer towards its neighbours under the gaps between boxes. */
#include "config.h"

#include <string.h>

#include "fw-layout-private.h"
#include "graph/fw-graph-private.h"

static gdouble
label_width (gsize n_chars)
{
  return MAX (MIN_WIDTH, MIN (n_chars, MAX_LABEL_CHARS) * GLYPH_WIDTH + 2 * LABEL_PAD);
}

static guint
count_digits (guint n)
{
  guint d = 1;

  while (n >= 10)
    {
      n /= 10;
      d++;
    }
  return d;
}

/* Places one layer as close to desired as the order and the gaps allow, least squares weighted: with
 * y_i = x_i − off_i (off the packed offsets) the gaps become y_i <= y_{i+1}, an isotonic regression that
 * pool-adjacent-violators solves in one pass. */
static void
place_layer (const guint *ids, guint n, const gdouble *width, const gboolean *dummy, const gdouble *desired,
             gdouble *x, gdouble *off, gdouble *bw, gdouble *bs, guint *bstart)
{
  guint nb = 0;

  for (guint i = 0; i < n; i++)
    {
      guint v = ids[i];
      gdouble w = dummy[v] ? DUMMY_WEIGHT : 1.0;

      if (i == 0)
        off[i] = 0;
      else
        {
          guint u = ids[i - 1];
          off[i] = off[i - 1] + (width[u] + width[v]) / 2 + (dummy[u] || dummy[v] ? DUMMY_GAP : NODE_GAP);
        }
      bw[nb] = w;
      bs[nb] = w * (desired[i] - off[i]);
      bstart[nb] = i;
      nb++;
      while (nb > 1 && bs[nb - 2] / bw[nb - 2] > bs[nb - 1] / bw[nb - 1])
        {
          bw[nb - 2] += bw[nb - 1];
          bs[nb - 2] += bs[nb - 1];
          nb--;
        }
    }
  for (guint b = 0; b < nb; b++)
    {
      gdouble value = bs[b] / bw[b];
      guint end = b + 1 < nb ? bstart[b + 1] : n;

      for (guint i = bstart[b]; i < end; i++)
        x[ids[i]] = value + off[i];
    }
}

/* Box widths from the labels, and a first x: each layer packed from 0 in its order. */
static void
initial_coordinates (Layered *g)
{
  g->width = g_new0 (gdouble, MAX (g->n_total, 1));
  g->x = g_new0 (gdouble, MAX (g->n_total, 1));
  for (guint u = 0; u < g->nu; u++)
    {
      Unit *unit = &g_array_index (g->units, Unit, u);

      if (unit->node != NULL)
        g->width[u] = label_width (strlen (unit->node->op_type));
      else
        /* " (N)", and room for the time fusion saves inside, which the canvas adds once planned. */
        g->width[u] = label_width (MIN (strlen (unit->scope->label), MAX_LABEL_CHARS) + 3
                                   + count_digits (unit->n_nodes) + SCOPE_SAVING_CHARS);
    }
  for (guint l = 0; l < g->n_layers; l++)
    {
      gdouble at = 0;

      for (guint i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
        {
          guint v = g->layer_nodes[i];

          if (i > g->layer_start[l])
            {
              guint u = g->layer_nodes[i - 1];
              at += (g->width[u] + g->width[v]) / 2 + (g->dummy[u] || g->dummy[v] ? DUMMY_GAP : NODE_GAP);
            }
          g->x[v] = at;
        }
    }
}

/* Coordinates: each layer moves as a whole towards the mean of its neighbours in the layer before,
 * alternating down and up, the last sweep looking both ways; the gaps between boxes are constraints. */
gboolean
fw_layout_assign_coordinates (Layered *g, const Job *job, GCancellable *cancellable, GError **error)
{
  guint n_buf = MAX (g->max_layer_len, 1);
  g_autofree gdouble *desired = g_new (gdouble, n_buf);
  g_autofree gdouble *off = g_new (gdouble, n_buf);
  g_autofree gdouble *bw = g_new (gdouble, n_buf);
  g_autofree gdouble *bs = g_new (gdouble, n_buf);
  g_autofree guint *bstart = g_new (guint, n_buf);
  guint passes = job->self->options.coordinate_passes;
  guint n_layers = g->n_layers;
  gdouble *x;

  initial_coordinates (g);
  x = g->x;
  for (guint p = 0; p < passes; p++)
    {
      gboolean last = p + 1 == passes;
      gboolean going_down = p % 2 == 0;

      for (guint step = 0; step < n_layers; step++)
        {
          guint l = going_down ? step : n_layers - 1 - step;
          guint n = g->layer_start[l + 1] - g->layer_start[l];
          const guint *ids = g->layer_nodes + g->layer_start[l];

          for (guint i = 0; i < n; i++)
            {
              guint v = ids[i];
              gdouble sum = 0;
              guint deg = 0;

              if (going_down || last)
                for (guint k = g->up.start[v]; k < g->up.start[v + 1]; k++, deg++)
                  sum += x[g->up.list[k]];
              if (!going_down || last)
                for (guint k = g->down.start[v]; k < g->down.start[v + 1]; k++, deg++)
                  sum += x[g->down.list[k]];
              desired[i] = deg > 0 ? sum / deg : x[v];
            }
          place_layer (ids, n, g->width, g->dummy, desired, x, off, bw, bs, bstart);
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      fw_layout_report_progress (job->self, job->context, 0.5 + 0.4 * (p + 1) / passes, NULL);
    }
  return TRUE;
}
