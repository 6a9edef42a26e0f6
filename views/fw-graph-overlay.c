#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "fw-graph-overlay.h"
#include "plan/fw-node-refusal.h"

G_DEFINE_ENUM_TYPE (FwGraphOverlay, fw_graph_overlay,
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_OP_CLASS, "op-class"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_FUSION, "fusion"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_REFUSAL, "refusal"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_SAVING, "saving"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_MEASURED, "measured"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_VERIFICATION, "verification"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_OVERLAY_SUPERKERNEL, "superkernel"))

#define TOP_CODES 6

static const GdkRGBA none_color = { 0.90, 0.90, 0.91, 1 };
/* Light to dark: more time saved reads darker. */
static const GdkRGBA ramp[4] = {
  { 0.80, 0.90, 0.97, 1 }, { 0.55, 0.76, 0.92, 1 }, { 0.30, 0.58, 0.85, 1 }, { 0.13, 0.38, 0.70, 1 },
};
static const GdkRGBA red = { 0.93, 0.45, 0.42, 1 };
static const GdkRGBA green = { 0.55, 0.82, 0.55, 1 };
static const GdkRGBA orange = { 0.98, 0.70, 0.40, 1 };
/* Distinct hues for the commonest refusal codes. */
static const GdkRGBA qualitative[TOP_CODES + 1] = {
  { 0.98, 0.60, 0.55, 1 }, { 0.99, 0.75, 0.45, 1 }, { 0.95, 0.88, 0.45, 1 }, { 0.70, 0.85, 0.55, 1 },
  { 0.60, 0.78, 0.92, 1 }, { 0.78, 0.68, 0.90, 1 }, { 0.80, 0.74, 0.70, 1 },
};

void
fw_graph_legend_clear (FwGraphLegend *legend)
{
  for (guint i = 0; i < legend->n_categories; i++)
    g_clear_pointer (&legend->labels[i], g_free);
  legend->n_categories = 0;
}

static guint8
add_category (FwGraphLegend *legend, const GdkRGBA *color, char *label)
{
  guint i = legend->n_categories++;

  g_assert (i < FW_GRAPH_OVERLAY_MAX_CATEGORIES);
  legend->colors[i] = *color;
  legend->labels[i] = label;
  return (guint8) (i + 1);
}

static FwCandidateItem *
item_of (FwProject *project, guint candidate)
{
  return project != NULL ? g_list_model_get_item (fw_project_get_candidates (project), candidate) : NULL;
}

/* The categories of a node under an overlay that reads only its fusion. */
typedef guint8 (*NodeClass) (FwPlan *plan, FwProject *project, const FwNode *node, const guint8 *ids);

static guint8
fusion_class (FwPlan *plan, FwProject *project, const FwNode *node, const guint8 *ids)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  g_autoptr(GPtrArray) refusals = NULL;

  if (c != G_MAXUINT)
    return ((FwCandidate *) g_ptr_array_index (plan->candidates, c))->status == FW_CANDIDATE_ACCEPTED ? ids[1] : ids[0];
  refusals = fw_plan_refusals_of_node (plan, node);
  for (guint i = 0; i < refusals->len; i++)
    if (((FwRefusal *) g_ptr_array_index (refusals, i))->code == FW_NF_VETOED)
      return ids[3];
  return refusals->len > 0 ? ids[2] : ids[4];
}

static guint8
saving_class (FwPlan *plan, FwProject *project, const FwNode *node, const guint8 *ids)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  gdouble us;

  if (c == G_MAXUINT)
    return ids[0];
  us = fw_candidate_get_cost (g_ptr_array_index (plan->candidates, c))->saving_s * 1e6;
  return us < 0 ? ids[1] : us < 1 ? ids[2] : us < 10 ? ids[3] : us < 100 ? ids[4] : ids[5];
}

static guint8
measured_class (FwPlan *plan, FwProject *project, const FwNode *node, const guint8 *ids)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  g_autoptr(FwCandidateItem) item = NULL;
  gdouble us;

  if (c == G_MAXUINT)
    return ids[0];
  item = item_of (project, c);
  us = item != NULL ? fw_candidate_item_get_measured_saved_us (item) : NAN;
  return isnan (us) ? ids[1] : us < 0 ? ids[2] : us < 1 ? ids[3] : us < 10 ? ids[4] : ids[5];
}

static guint8
verification_class (FwPlan *plan, FwProject *project, const FwNode *node, const guint8 *ids)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  g_autoptr(FwCandidateItem) item = NULL;
  const char *result;

  if (c == G_MAXUINT)
    return ids[0];
  item = item_of (project, c);
  result = item != NULL ? fw_candidate_item_get_verification (item) : NULL;
  if (g_strcmp0 (result, "fail") == 0 || (item != NULL && g_strcmp0 (fw_candidate_item_get_twin (item), "fail") == 0))
    return ids[2];
  if (g_strcmp0 (result, "pass") == 0)
    return ids[1];
  if (g_strcmp0 (result, "unverified") == 0)
    return ids[3];
  return ids[4];
}

/* Refusal codes: the commonest among the boxes' unfused nodes get a colour each, the rest one together. */
static void
classify_refusals (FwLayout *layout, FwPlan *plan, FwGraphLegend *legend, guint8 *out)
{
  guint n = fw_layout_get_n_boxes (layout);
  g_autofree gint *code = g_new (gint, MAX (n, 1));
  guint counts[FW_NF_N_CODES] = { 0 };
  guint8 id_of[FW_NF_N_CODES] = { 0 };
  guint8 other = 0, none;

  for (guint b = 0; b < n; b++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, b);
      g_autoptr(GPtrArray) refusals = NULL;

      code[b] = -1;
      if (box->kind != FW_LAYOUT_BOX_NODE || box->node == NULL || fw_plan_fused_candidate_of (plan, box->node) != G_MAXUINT)
        continue;
      refusals = fw_plan_refusals_of_node (plan, box->node);
      if (refusals->len > 0)
        {
          code[b] = ((FwRefusal *) g_ptr_array_index (refusals, 0))->code;
          if (code[b] > 0 && code[b] < FW_NF_N_CODES)
            counts[code[b]]++;
        }
    }
  for (guint shown = 0; shown < TOP_CODES; shown++)
    {
      guint best = 0;

      for (guint c = 1; c < FW_NF_N_CODES; c++)
        if (id_of[c] == 0 && counts[c] > counts[best])
          best = c;
      if (counts[best] == 0)
        break;
      id_of[best] = add_category (legend, &qualitative[shown],
                                  g_strdup_printf ("%s %s", fw_reason_code_string (best), fw_reason_code_title (best)));
    }
  for (guint c = 1; c < FW_NF_N_CODES; c++)
    if (counts[c] > 0 && id_of[c] == 0)
      {
        other = add_category (legend, &qualitative[TOP_CODES], g_strdup (_("Other refusal codes")));
        break;
      }
  none = add_category (legend, &none_color, g_strdup (_("Fused, or no refusal names it")));
  for (guint b = 0; b < n; b++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, b);

      if (box->kind != FW_LAYOUT_BOX_NODE || box->node == NULL)
        out[b] = 0;
      else if (code[b] > 0 && code[b] < FW_NF_N_CODES)
        out[b] = id_of[code[b]] != 0 ? id_of[code[b]] : other;
      else
        out[b] = none;
    }
}

/* SuperKernel scopes: the project's automatic scopes (a borrowed plan has none), each scope's nodes in one
 * of SCOPE_HUES colours taken in turn so neighbouring scopes differ, the kernels that cannot join in red. */
#define SCOPE_HUES 4

static void
classify_superkernel (FwLayout *layout, FwPlan *plan, FwProject *project, FwGraphLegend *legend, guint8 *out)
{
  const FwSkPlan *sk = project != NULL && fw_project_get_plan (project) == plan ? fw_project_get_superkernel_plan (project)
                                                                               : NULL;
  guint n = fw_layout_get_n_boxes (layout), n_scopes = sk ? sk->scopes->len : 0;
  g_autoptr(GHashTable) colour_of = g_hash_table_new (NULL, NULL);   /* FwNode* → category */
  guint8 hue[SCOPE_HUES] = { 0 }, refused = 0, none;

  for (guint h = 0; h < MIN (n_scopes, SCOPE_HUES); h++)
    {
      g_autoptr(GString) which = g_string_new (NULL);

      for (guint s = h, k = 0; s < n_scopes && k < 3; s += SCOPE_HUES, k++)
        g_string_append_printf (which, "%s%s", k ? ", " : "",
                                ((FwSkScope *) g_ptr_array_index (sk->scopes, s))->name);
      if (n_scopes > h + 3 * SCOPE_HUES)
        g_string_append (which, ", …");
      /* TRANSLATORS: the scopes drawn in this colour, e.g. "sk_000, sk_004, sk_008, …" */
      hue[h] = add_category (legend, &qualitative[h + 3], g_strdup_printf (_("SuperKernel %s"), which->str));
    }
  if (sk != NULL && sk->refusals->len > 0)
    refused = add_category (legend, &red, g_strdup (_("Cannot join a SuperKernel")));
  none = add_category (legend, &none_color, g_strdup (_("In no SuperKernel scope")));
  for (guint s = 0; s < n_scopes; s++)
    {
      const FwSkScope *scope = g_ptr_array_index (sk->scopes, s);

      for (guint i = 0; i < scope->kernels->len; i++)
        {
          const FwSkKernel *k = &g_array_index (scope->kernels, FwSkKernel, i);
          gpointer id = GUINT_TO_POINTER (hue[s % SCOPE_HUES]);

          if (k->candidate == G_MAXUINT)
            g_hash_table_insert (colour_of, k->node, id);
          else
            {
              const FwCandidate *c = g_ptr_array_index (plan->candidates, k->candidate);
              for (guint m = 0; m < c->nodes->len; m++)
                g_hash_table_insert (colour_of, g_ptr_array_index (c->nodes, m), id);
            }
        }
    }
  for (guint r = 0; sk != NULL && r < sk->refusals->len; r++)
    {
      const FwSkRefusal *ref = g_ptr_array_index (sk->refusals, r);
      guint c = fw_plan_fused_candidate_of (plan, ref->node);

      if (c == G_MAXUINT)
        g_hash_table_insert (colour_of, ref->node, GUINT_TO_POINTER (refused));
      else
        for (guint m = 0; m < ((FwCandidate *) g_ptr_array_index (plan->candidates, c))->nodes->len; m++)
          g_hash_table_insert (colour_of, g_ptr_array_index (((FwCandidate *) g_ptr_array_index (plan->candidates, c))->nodes, m),
                               GUINT_TO_POINTER (refused));
    }
  for (guint b = 0; b < n; b++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, b);
      gpointer id;

      if (box->kind != FW_LAYOUT_BOX_NODE || box->node == NULL)
        out[b] = 0;
      else if (g_hash_table_lookup_extended (colour_of, box->node, NULL, &id))
        out[b] = (guint8) GPOINTER_TO_UINT (id);
      else
        out[b] = none;
    }
}

guint8 *
fw_graph_overlay_classify (FwGraphOverlay overlay, FwLayout *layout, FwPlan *plan, FwProject *project,
                           FwGraphLegend *legend)
{
  guint n = fw_layout_get_n_boxes (layout);
  guint8 ids[FW_GRAPH_OVERLAY_MAX_CATEGORIES] = { 0 };
  NodeClass node_class = NULL;
  guint8 *out;

  fw_graph_legend_clear (legend);
  if (overlay == FW_GRAPH_OVERLAY_OP_CLASS || plan == NULL)
    return NULL;
  out = g_new0 (guint8, MAX (n, 1));
  switch (overlay)
    {
    case FW_GRAPH_OVERLAY_FUSION:
      ids[0] = add_category (legend, &ramp[2], g_strdup (_("In a proposed fusion")));
      ids[1] = add_category (legend, &green, g_strdup (_("In an accepted fusion")));
      ids[2] = add_category (legend, &orange, g_strdup (_("Refused")));
      ids[3] = add_category (legend, &red, g_strdup (_("Vetoed")));
      ids[4] = add_category (legend, &none_color, g_strdup (_("Not a candidate")));
      node_class = fusion_class;
      break;
    case FW_GRAPH_OVERLAY_REFUSAL:
      classify_refusals (layout, plan, legend, out);
      return out;
    case FW_GRAPH_OVERLAY_SUPERKERNEL:
      classify_superkernel (layout, plan, project, legend, out);
      return out;
    case FW_GRAPH_OVERLAY_SAVING:
    case FW_GRAPH_OVERLAY_MEASURED:
      ids[0] = add_category (legend, &none_color, g_strdup (_("Not fused")));
      if (overlay == FW_GRAPH_OVERLAY_MEASURED)
        ids[1] = add_category (legend, &(GdkRGBA) { 0.97, 0.97, 0.97, 1 }, g_strdup (_("Not measured")));
      ids[overlay == FW_GRAPH_OVERLAY_MEASURED ? 2 : 1] = add_category (legend, &red, g_strdup (_("Slower fused")));
      {
        guint first = overlay == FW_GRAPH_OVERLAY_MEASURED ? 3 : 2;
        const char *bands[] = { N_("Under 1 µs saved"), N_("1 to 10 µs saved"), N_("10 to 100 µs saved"),
                                N_("100 µs or more saved") };
        /* Measured savings are per kernel and smaller: three bands up to 10 µs and more. */
        guint n_bands = overlay == FW_GRAPH_OVERLAY_MEASURED ? 3 : 4;

        for (guint i = 0; i < n_bands; i++)
          ids[first + i] = add_category (legend, &ramp[overlay == FW_GRAPH_OVERLAY_MEASURED ? i + 1 : i],
                                         g_strdup (overlay == FW_GRAPH_OVERLAY_MEASURED && i == 2
                                                   ? _("10 µs or more saved") : _(bands[i])));
      }
      node_class = overlay == FW_GRAPH_OVERLAY_SAVING ? saving_class : measured_class;
      break;
    case FW_GRAPH_OVERLAY_VERIFICATION:
      ids[0] = add_category (legend, &none_color, g_strdup (_("Not fused")));
      ids[1] = add_category (legend, &green, g_strdup (_("Verified")));
      ids[2] = add_category (legend, &red, g_strdup (_("Failed verification")));
      ids[3] = add_category (legend, &orange, g_strdup (_("Did not compile")));
      ids[4] = add_category (legend, &(GdkRGBA) { 0.97, 0.97, 0.97, 1 }, g_strdup (_("Not checked yet")));
      node_class = verification_class;
      break;
    case FW_GRAPH_OVERLAY_OP_CLASS:
    default:
      g_assert_not_reached ();
    }
  for (guint b = 0; b < n; b++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, b);

      out[b] = box->kind == FW_LAYOUT_BOX_NODE && box->node != NULL ? node_class (plan, project, box->node, ids) : 0;
    }
  return out;
}

void
fw_graph_legend_snapshot (const FwGraphLegend *legend, GtkWidget *widget, GtkSnapshot *snapshot)
{
  static const GdkRGBA back = { 1, 1, 1, 0.92 };
  static const GdkRGBA frame = { 0.3, 0.3, 0.35, 1 };
  static const GdkRGBA ink = { 0.1, 0.1, 0.1, 1 };
  const float pad = 8, swatch = 12, row = 18;
  PangoLayout *layouts[FW_GRAPH_OVERLAY_MAX_CATEGORIES] = { NULL };
  float widths[4] = { 1, 1, 1, 1 };
  GdkRGBA frames[4] = { frame, frame, frame, frame };
  GskRoundedRect rr;
  int text_w = 0;

  if (legend->n_categories == 0)
    return;
  for (guint i = 0; i < legend->n_categories; i++)
    {
      int w, h;

      layouts[i] = gtk_widget_create_pango_layout (widget, legend->labels[i]);
      pango_layout_get_pixel_size (layouts[i], &w, &h);
      text_w = MAX (text_w, w);
    }
  gsk_rounded_rect_init_from_rect (&rr, &GRAPHENE_RECT_INIT (12, 12, pad * 3 + swatch + text_w,
                                                             pad * 2 + row * legend->n_categories), 4);
  gtk_snapshot_push_rounded_clip (snapshot, &rr);
  gtk_snapshot_append_color (snapshot, &back, &rr.bounds);
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_append_border (snapshot, &rr, widths, frames);
  for (guint i = 0; i < legend->n_categories; i++)
    {
      float y = 12 + pad + row * i;
      int w, h;

      gtk_snapshot_append_color (snapshot, &legend->colors[i],
                                 &GRAPHENE_RECT_INIT (12 + pad, y + (row - swatch) / 2, swatch, swatch));
      pango_layout_get_pixel_size (layouts[i], &w, &h);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (12 + pad * 2 + swatch, y + (row - h) / 2));
      gtk_snapshot_append_layout (snapshot, layouts[i], &ink);
      gtk_snapshot_restore (snapshot);
      g_object_unref (layouts[i]);
    }
}
