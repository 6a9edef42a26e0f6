#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "fw-picture.h"
#include "fw-render.h"
#include "graph/fw-graph-private.h"
#include "layout/fw-hull.h"
#include "ops/fw-op-registry.h"

#define HULL_PAD        6.0
#define CORNER          5.0
#define FONT_SIZE       11.0
#define MAX_LABEL_CHARS 40

typedef struct
{
  gdouble r, g, b;
} Rgb;

void
fw_render_box_color (FwLayoutBoxKind kind, FwOpClass op_class, gdouble *red, gdouble *green, gdouble *blue)
{
  static const Rgb colors[] = {
    [FW_OP_CLASS_ELEMENTWISE] = { 0.80, 0.92, 0.80 },
    [FW_OP_CLASS_BROADCAST] = { 0.78, 0.88, 0.96 },
    [FW_OP_CLASS_INJECTIVE] = { 0.96, 0.91, 0.76 },
    [FW_OP_CLASS_REDUCE] = { 0.97, 0.80, 0.75 },
    [FW_OP_CLASS_OUT_FUSABLE] = { 0.86, 0.79, 0.96 },
    [FW_OP_CLASS_OPAQUE] = { 0.88, 0.88, 0.88 },
  };
  static const Rgb scope = { 1.0, 0.96, 0.82 };
  Rgb c;

  if (kind == FW_LAYOUT_BOX_SCOPE)
    c = scope;
  else
    c = (guint) op_class < G_N_ELEMENTS (colors) ? colors[op_class] : colors[FW_OP_CLASS_OPAQUE];
  *red = c.r;
  *green = c.g;
  *blue = c.b;
}

void
fw_render_hull_color (FwCandidateStatus status, gdouble *red, gdouble *green, gdouble *blue)
{
  Rgb c;

  switch (status)
    {
    case FW_CANDIDATE_ACCEPTED:
      c = (Rgb) { 0.0, 0.6, 0.2 };
      break;
    case FW_CANDIDATE_VETOED:
      c = (Rgb) { 0.8, 0.0, 0.0 };
      break;
    case FW_CANDIDATE_REFUSED:
      c = (Rgb) { 0.4, 0.4, 0.4 };
      break;
    case FW_CANDIDATE_PROPOSED:
    default:
      c = (Rgb) { 0.0, 0.4, 1.0 };
      break;
    }
  *red = c.r;
  *green = c.g;
  *blue = c.b;
}

void
fw_render_set_hull_dash (cairo_t *cr, FwCandidateStatus status, gdouble unit)
{
  double proposed[] = { 6 * unit, 4 * unit };
  double dotted[] = { 2 * unit, 3 * unit };
  double dash_dot[] = { 10 * unit, 4 * unit, 2 * unit, 4 * unit };

  switch (status)
    {
    case FW_CANDIDATE_PROPOSED:
      cairo_set_dash (cr, proposed, G_N_ELEMENTS (proposed), 0);
      break;
    case FW_CANDIDATE_VETOED:
      cairo_set_dash (cr, dotted, G_N_ELEMENTS (dotted), 0);
      break;
    case FW_CANDIDATE_REFUSED:
      cairo_set_dash (cr, dash_dot, G_N_ELEMENTS (dash_dot), 0);
      break;
    case FW_CANDIDATE_ACCEPTED:
    default:
      cairo_set_dash (cr, NULL, 0, 0);
      break;
    }
}

/* The hull path of a candidate's boxes, or FALSE when none of its nodes is drawn. */
static gboolean
hull_path (cairo_t *cr, FwLayout *layout, const FwCandidate *c)
{
  guint n;
  g_autofree FwLayoutPoint *hull = fw_hull_around_nodes (layout, c->nodes, HULL_PAD, &n);

  if (hull == NULL)
    return FALSE;
  cairo_new_path (cr);
  for (guint i = 0; i < n; i++)
    cairo_line_to (cr, hull[i].x, hull[i].y);
  cairo_close_path (cr);
  return TRUE;
}

static void
rounded_box (cairo_t *cr, gdouble x, gdouble y, gdouble w, gdouble h, gdouble r)
{
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

/* cairo takes UTF-8 only, and a bad byte would put the whole drawing into an error state. */
static char *
box_text (const FwLayoutBox *box)
{
  g_autofree char *valid = g_utf8_make_valid (box->label ? box->label : "", -1);
  g_autofree char *cut = NULL;

  if (g_utf8_strlen (valid, -1) > MAX_LABEL_CHARS)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, MAX_LABEL_CHARS - 1);
      cut = g_strconcat (head, "…", NULL);
    }
  else
    cut = g_steal_pointer (&valid);
  if (box->kind == FW_LAYOUT_BOX_SCOPE)
    return g_strdup_printf ("%s (%u)", cut, box->n_nodes);
  return g_steal_pointer (&cut);
}

static void
draw_arrow (cairo_t *cr, const FwLayoutPoint *tip, const FwLayoutPoint *from)
{
  gdouble dx = tip->x - from->x, dy = tip->y - from->y;
  gdouble len = sqrt (dx * dx + dy * dy);
  gdouble ux, uy;

  if (len < 1e-6)
    return;
  ux = dx / len;
  uy = dy / len;
  cairo_move_to (cr, tip->x, tip->y);
  cairo_line_to (cr, tip->x - 7 * ux + 3.5 * uy, tip->y - 7 * uy - 3.5 * ux);
  cairo_line_to (cr, tip->x - 7 * ux - 3.5 * uy, tip->y - 7 * uy + 3.5 * ux);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
draw_graph (cairo_t *cr, FwLayout *layout, const FwPlan *plan)
{
  guint n_boxes = fw_layout_get_n_boxes (layout);
  guint n_edges = fw_layout_get_n_edges (layout);
  guint n_candidates = plan && plan->candidates ? plan->candidates->len : 0;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);

  /* Hull fills under everything, their outlines over the boxes so each stays visible. */
  for (guint i = 0; i < n_candidates; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      gdouble r, g, b;

      if (!hull_path (cr, layout, c))
        continue;
      fw_render_hull_color (c->status, &r, &g, &b);
      cairo_set_source_rgba (cr, r, g, b, 0.10);
      cairo_fill (cr);
    }

  cairo_set_source_rgb (cr, 0.45, 0.45, 0.48);
  cairo_set_line_width (cr, 1.2);
  for (guint i = 0; i < n_edges; i++)
    {
      const FwLayoutEdge *e = fw_layout_get_edge (layout, i);

      cairo_new_path (cr);
      for (guint k = 0; k < e->n_points; k++)
        cairo_line_to (cr, e->points[k].x, e->points[k].y);
      cairo_stroke (cr);
      if (e->reversed)
        draw_arrow (cr, &e->points[0], &e->points[1]);
      else
        draw_arrow (cr, &e->points[e->n_points - 1], &e->points[e->n_points - 2]);
    }

  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, FONT_SIZE);
  for (guint i = 0; i < n_boxes; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);
      g_autofree char *text = box_text (box);
      cairo_text_extents_t ext;
      FwOpClass op_class = box->node && box->node->op ? box->node->op->op_class : FW_OP_CLASS_OPAQUE;
      Rgb fill;

      fw_render_box_color (box->kind, op_class, &fill.r, &fill.g, &fill.b);
      rounded_box (cr, box->x, box->y, box->w, box->h, CORNER);
      cairo_set_source_rgb (cr, fill.r, fill.g, fill.b);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, 0.25, 0.25, 0.28);
      cairo_set_line_width (cr, box->kind == FW_LAYOUT_BOX_SCOPE ? 2.0 : 1.0);
      cairo_stroke (cr);
      cairo_text_extents (cr, text, &ext);
      cairo_move_to (cr, box->x + (box->w - ext.width) / 2 - ext.x_bearing,
                     box->y + (box->h - ext.height) / 2 - ext.y_bearing);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_show_text (cr, text);
    }

  cairo_set_line_width (cr, 2.0);
  for (guint i = 0; i < n_candidates; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      gdouble r, g, b;

      if (!hull_path (cr, layout, c))
        continue;
      fw_render_hull_color (c->status, &r, &g, &b);
      cairo_set_source_rgb (cr, r, g, b);
      fw_render_set_hull_dash (cr, c->status, 1.0);
      cairo_stroke (cr);
    }
  cairo_set_dash (cr, NULL, 0, 0);
}

typedef struct
{
  FwLayout     *layout;
  const FwPlan *plan;
} GraphPicture;

static void
draw_graph_picture (cairo_t *cr, gdouble width, gdouble height, gpointer user_data)
{
  GraphPicture *picture = user_data;

  draw_graph (cr, picture->layout, picture->plan);
}

gboolean
fw_render_graph (FwLayout *layout, const FwPlan *plan, const char *path, GError **error)
{
  GraphPicture picture = { layout, plan };
  gdouble width, height;

  g_return_val_if_fail (FW_IS_LAYOUT (layout), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  fw_layout_get_bounds (layout, &width, &height);
  return fw_picture_write (path, MAX (width, 1), MAX (height, 1), draw_graph_picture, &picture, error);
}
