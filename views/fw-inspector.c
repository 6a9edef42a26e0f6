/* fw-inspector.c: the inspector: what the graph or the candidate list selected, as text sections in a
 * scrolled box, and a candidate's generated host and Ascend C source: the last check's, or generated in a
 * worker (cached in the project per candidate and plan revision) behind a placeholder, so selecting never
 * waits for a code generator. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n.h>
#include <adwaita.h>
#ifdef FW_HAVE_GTKSOURCEVIEW
#include <gtksourceview/gtksource.h>
#endif

#include "fw-inspector.h"
#include "fw-value-labels.h"
#include "plan/fw-node-refusal.h"
#include "session/fw-kernel-sources.h"

/* Statistics read at most this many elements: a 1 GiB embedding table must not stall the window. */
#define STATS_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 22)

struct _FwInspector
{
  GtkWidget   parent_instance;
  FwProject  *project;
  GtkWidget  *scrolled;
  GtkWidget  *box;
  char       *title;
  /* The candidate on show (G_MAXUINT: none), its list row and the label of its Verification section, kept
   * so a finished check updates that label without regenerating the sources above it. */
  guint            shown_candidate;
  FwCandidateItem *shown_item;
  GtkWidget       *verification_label;
  /* Its pattern, kind and status, kept so a decision on it (or an undo) updates the status shown. */
  GtkWidget       *about_label;
  GtkWidget       *accept_button;   /* insensitive while the candidate is vetoed: undo is the way back */
  /* The node on show, or NULL: shown again when the plan changes (its fusion, its SuperKernel scope). */
  FwNode          *shown_node;
  /* Source buffers on show, restyled when the theme turns light or dark. */
  GPtrArray       *source_buffers;
  /* The sources being generated for the shown candidate: the request's number (0: none) and the
   * placeholder section standing in for them. A result for an older request is not shown. */
  guint            pending;
  guint            n_requests;
  GtkWidget       *placeholder_heading;
  GtkWidget       *placeholder_label;
};

G_DEFINE_FINAL_TYPE (FwInspector, fw_inspector, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_TITLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_title (FwInspector *self, const char *title)
{
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

static void
forget_candidate (FwInspector *self)
{
  if (self->shown_item != NULL)
    g_signal_handlers_disconnect_by_data (self->shown_item, self);
  g_clear_object (&self->shown_item);
  self->shown_candidate = G_MAXUINT;
  self->verification_label = NULL;
  self->about_label = NULL;
  self->accept_button = NULL;
  self->pending = 0;
  self->placeholder_heading = NULL;
  self->placeholder_label = NULL;
}

static void
clear_box (FwInspector *self)
{
  GtkWidget *child;

  forget_candidate (self);
  self->shown_node = NULL;
  g_ptr_array_set_size (self->source_buffers, 0);
  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
}

static void
add_heading (FwInspector *self, const char *text, const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, css);
  gtk_box_append (GTK_BOX (self->box), label);
}

static GtkWidget *
add_text (FwInspector *self, const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_box_append (GTK_BOX (self->box), label);
  return label;
}

static GtkWidget *
add_section (FwInspector *self, const char *heading, const char *text)
{
  add_heading (self, heading, "heading");
  return add_text (self, text);
}

/* ---- source views ---- */

#ifdef FW_HAVE_GTKSOURCEVIEW
/* Whether the window is dark: libadwaita's style manager decides where the application initialised it
 * (it follows the desktop and the preferences' theme choice); plain GTK's preference otherwise. */
static gboolean
theme_is_dark (void)
{
  gboolean dark = FALSE;

  if (adw_is_initialized ())
    return adw_style_manager_get_dark (adw_style_manager_get_default ());
  if (gtk_settings_get_default () != NULL)
    g_object_get (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", &dark, NULL);
  return dark;
}

static void
apply_scheme (GtkSourceBuffer *buffer, gboolean dark)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  /* Adwaita matches libadwaita's palette; classic ships with every GtkSourceView 5 as a fallback. */
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (manager,
                                                                             dark ? "Adwaita-dark" : "Adwaita");

  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "classic-dark" : "classic");
  gtk_source_buffer_set_style_scheme (buffer, scheme);
}

static void
on_theme_changed (FwInspector *self)
{
  gboolean dark = theme_is_dark ();

  for (guint i = 0; i < self->source_buffers->len; i++)
    apply_scheme (g_ptr_array_index (self->source_buffers, i), dark);
}
#endif

#define DIAGNOSTIC_TAG "fw-diagnostic"

#ifdef FW_HAVE_GTKSOURCEVIEW
static char *
on_mark_tooltip (GtkSourceMarkAttributes *attributes, GtkSourceMark *mark, gpointer data)
{
  return g_strdup (g_object_get_data (G_OBJECT (mark), "fw-text"));
}
#endif

/* The lines a checker found fault with (the twin's diagnostics): a red band over each, a warning in the
 * gutter whose tooltip says what was wrong, and the view scrolled to the first. */
static void
mark_lines (GtkWidget *view, const FwKernelSources *sources, FwTargetId target)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  guint n = fw_kernel_sources_get_n_marks (sources, target);
  GdkRGBA band = { 0.88, 0.11, 0.14, 0.22 };
  GtkTextTag *tag;

  if (n == 0)
    return;
  tag = gtk_text_buffer_create_tag (buffer, DIAGNOSTIC_TAG, "paragraph-background-rgba", &band, NULL);
#ifdef FW_HAVE_GTKSOURCEVIEW
  {
    g_autoptr(GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();

    gtk_source_mark_attributes_set_icon_name (attributes, "dialog-warning-symbolic");
    g_signal_connect (attributes, "query-tooltip-text", G_CALLBACK (on_mark_tooltip), NULL);
    gtk_source_view_set_mark_attributes (GTK_SOURCE_VIEW (view), DIAGNOSTIC_TAG, attributes, 0);
    gtk_source_view_set_show_line_marks (GTK_SOURCE_VIEW (view), TRUE);
  }
#endif
  for (guint i = 0; i < n; i++)
    {
      const FwSourceMark *m = fw_kernel_sources_get_mark (sources, target, i);
      GtkTextIter start, end;

      if (m->line > (guint) gtk_text_buffer_get_line_count (buffer))
        continue;
      gtk_text_buffer_get_iter_at_line (buffer, &start, (gint) m->line - 1);
      end = start;
      gtk_text_iter_forward_to_line_end (&end);
      gtk_text_buffer_apply_tag (buffer, tag, &start, &end);
#ifdef FW_HAVE_GTKSOURCEVIEW
      {
        GtkSourceMark *mark = gtk_source_buffer_create_source_mark (GTK_SOURCE_BUFFER (buffer), NULL,
                                                                    DIAGNOSTIC_TAG, &start);
        g_object_set_data_full (G_OBJECT (mark), "fw-text", g_strdup (m->text), g_free);
      }
#endif
      if (i == 0)
        {
          GtkTextMark *first = gtk_text_buffer_create_mark (buffer, NULL, &start, TRUE);
          gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (view), first, 0.1, TRUE, 0.0, 0.3);
        }
    }
}

static void
add_source (FwInspector *self, const char *heading, const char *source, const char *language,
            const FwKernelSources *sources, FwTargetId target)
{
  GtkWidget *view, *frame;
  GtkTextBuffer *buffer;

  add_heading (self, heading, "heading");
#ifdef FW_HAVE_GTKSOURCEVIEW
  {
    GtkSourceLanguage *lang = gtk_source_language_manager_get_language (
      gtk_source_language_manager_get_default (), language);
    GtkSourceBuffer *sbuffer = gtk_source_buffer_new_with_language (lang);

    gtk_source_buffer_set_highlight_matching_brackets (sbuffer, FALSE);
    apply_scheme (sbuffer, theme_is_dark ());
    view = gtk_source_view_new_with_buffer (sbuffer);
    gtk_source_view_set_show_line_numbers (GTK_SOURCE_VIEW (view), TRUE);
    g_ptr_array_add (self->source_buffers, sbuffer);
  }
#else
  (void) language;
  view = gtk_text_view_new ();
#endif
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_NONE);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  gtk_text_buffer_set_text (buffer, source, -1);
  mark_lines (view, sources, target);
  frame = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (frame), view);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (frame), 240);
  gtk_box_append (GTK_BOX (self->box), frame);
}

/* ---- nodes ---- */

static void
append_attr (GString *s, const FwAttr *a)
{
  guint n;

  g_string_append_printf (s, "%s = ", fw_attr_get_name (a));
  switch (fw_attr_get_attr_type (a))
    {
    case FW_ATTR_FLOAT: g_string_append_printf (s, "%g", fw_attr_get_float (a)); break;
    case FW_ATTR_INT: g_string_append_printf (s, "%" G_GINT64_FORMAT, fw_attr_get_int (a)); break;
    case FW_ATTR_STRING:
      {
        gsize len;
        const char *str = fw_attr_get_string (a, &len);
        /* A model's strings may be anything: shown escaped, never as markup. */
        g_autofree char *valid = g_utf8_make_valid (str ? str : "", str ? (gssize) len : 0);
        g_string_append_printf (s, "“%s”", valid);
      }
      break;
    case FW_ATTR_INTS:
      {
        const gint64 *ints = fw_attr_get_ints (a, &n);

        g_string_append_c (s, '[');
        for (guint i = 0; i < n && i < 64; i++)
          g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", ints[i]);
        g_string_append (s, n > 64 ? ", …]" : "]");
      }
      break;
    case FW_ATTR_FLOATS:
      {
        const float *floats = fw_attr_get_floats (a, &n);

        g_string_append_c (s, '[');
        for (guint i = 0; i < n && i < 64; i++)
          g_string_append_printf (s, "%s%g", i ? ", " : "", floats[i]);
        g_string_append (s, n > 64 ? ", …]" : "]");
      }
      break;
    case FW_ATTR_TENSOR: g_string_append (s, _("a tensor")); break;
    case FW_ATTR_GRAPH: g_string_append (s, _("a subgraph")); break;
    case FW_ATTR_UNDEFINED:
    case FW_ATTR_STRINGS:
    case FW_ATTR_TENSORS:
    case FW_ATTR_GRAPHS:
    case FW_ATTR_SPARSE_TENSOR:
    case FW_ATTR_SPARSE_TENSORS:
    case FW_ATTR_TYPE_PROTO:
    case FW_ATTR_TYPE_PROTOS:
    default:
      g_string_append_printf (s, _("(%u values)"), fw_attr_get_n_values (a));
      break;
    }
  g_string_append_c (s, '\n');
}

static void
append_value (GString *s, const FwValue *v)
{
  g_autofree char *shape = NULL;

  if (v == NULL)
    {
      g_string_append (s, _("(omitted)\n"));
      return;
    }
  shape = fw_value_format_shape (v);
  g_string_append_printf (s, "%s  %s %s%s\n", fw_value_get_name (v), fw_dtype_name (fw_value_get_dtype (v)), shape,
                          fw_value_is_initializer (v) ? _("  (initializer)") : "");
}

/* min, max and mean of an initializer, read on demand when its node is shown, over at most
 * STATS_MAX_ELEMENTS elements. */
static void
append_stats (GString *s, const FwValue *v)
{
  const FwTensor *t = fw_value_get_constant (v);
  gint64 n;
  double lo = INFINITY, hi = -INFINITY, sum = 0, x;
  gint64 counted = 0;

  if (t == NULL || t->n_elements == 0)
    return;
  n = MIN (t->n_elements, STATS_MAX_ELEMENTS);
  for (gint64 i = 0; i < n; i++)
    {
      if (!fw_tensor_get_double (t, i, &x))
        return;
      if (isnan (x))
        continue;
      lo = MIN (lo, x);
      hi = MAX (hi, x);
      sum += x;
      counted++;
    }
  if (counted == 0)
    {
      g_string_append_printf (s, _("%s: no numbers\n"), fw_value_get_name (v));
      return;
    }
  g_string_append_printf (s, _("%s: min %g, max %g, mean %g"), fw_value_get_name (v), lo, hi, sum / counted);
  if (n < t->n_elements)
    g_string_append_printf (s, _(" (first %" PRId64 " of %" PRId64 " elements)"), (int64_t) n,
                            (int64_t) t->n_elements);
  g_string_append_c (s, '\n');
}

/* The fusion holding the node, or every refusal that kept it out of one (code, title, numbers, the candidate
 * it would have joined). */
static void
add_fusion_section (FwInspector *self, const FwNode *node)
{
  FwPlan *plan = self->project != NULL ? fw_project_get_plan (self->project) : NULL;
  g_autofree char *text = NULL;
  guint c;

  if (plan == NULL)
    return;
  c = fw_plan_fused_candidate_of (plan, node);
  if (c != G_MAXUINT)
    text = g_strdup_printf (_("In candidate #%u (%s), %s"), c,
                            ((FwCandidate *) g_ptr_array_index (plan->candidates, c))->pattern,
                            fw_label_candidate_status (((FwCandidate *) g_ptr_array_index (plan->candidates, c))->status));
  else
    text = fw_plan_describe_unfused (plan, node, 20);
  add_section (self, _("Fusion"), text != NULL ? text : _("Not in any candidate, and no refusal names it"));
}

static const char *
sync_label (FwSkSync sync)
{
  switch (sync)
    {
    case FW_SK_SYNC_VECTOR: return _("over the vector cores");
    case FW_SK_SYNC_CUBE: return _("over the cube cores");
    case FW_SK_SYNC_ALL: return _("over all cores");
    case FW_SK_SYNC_NONE:
    default: return _("none");
    }
}

/* The SuperKernel scope the node's kernel is bound into (docs/superkernel.md), with the barrier before it,
 * or why it could not join one. Nothing for a node that is no kernel (folded at load). */
static void
add_superkernel_section (FwInspector *self, const FwNode *node)
{
  const FwSkPlan *sk = self->project != NULL ? fw_project_get_superkernel_plan (self->project) : NULL;
  g_autoptr(GString) s = g_string_new (NULL);
  guint scope_i = 0, kernel_i = 0, refusal_i = 0;

  if (sk == NULL)
    return;
  switch (fw_sk_plan_locate (sk, node, &scope_i, &kernel_i, &refusal_i))
    {
    case FW_SK_PLACE_SCOPE:
      {
        const FwSkScope *scope = g_ptr_array_index (sk->scopes, scope_i);
        const FwSkKernel *k = &g_array_index (scope->kernels, FwSkKernel, kernel_i);
        g_autofree char *pos = g_strdup_printf ("%u", kernel_i + 1);
        g_autofree char *n = g_strdup_printf ("%u", scope->kernels->len);
        g_autofree char *cores = g_strdup_printf ("%u", k->cores);
        const char *code = fw_sk_code_name (scope->end);

        /* TRANSLATORS: scope name, position, kernels in the scope, blocks the kernel launches */
        g_string_append_printf (s, _("In %s: kernel %s of %s, on %s cores"), scope->name, pos, n, cores);
        g_string_append_c (s, '\n');
        if (kernel_i > 0)
          {
            /* TRANSLATORS: the barrier before this kernel: "none", "over the vector cores"… */
            g_string_append_printf (s, _("Barrier before it: %s"), sync_label (k->sync));
            if (k->sync_value != NULL)
              /* TRANSLATORS: a value the kernel reads that other cores wrote */
              g_string_append_printf (s, _(" (it reads “%s”, which other cores wrote)"), k->sync_value->name);
            g_string_append_c (s, '\n');
          }
        g_string_append_printf (s, _("The scope ends: %s%s%s"), code ? code : "", code ? " " : "",
                                scope->end_message ? scope->end_message : "");
        break;
      }
    case FW_SK_PLACE_REFUSED:
      {
        const FwSkRefusal *r = g_ptr_array_index (sk->refusals, refusal_i);
        g_string_append_printf (s, "%s %s", fw_sk_code_name (r->code), r->message);
        break;
      }
    case FW_SK_PLACE_ALONE:
      g_string_append (s, _("In no SuperKernel scope: its run of kernels is a single one"));
      break;
    case FW_SK_PLACE_NONE:
    default:
      return;
    }
  add_section (self, _("SuperKernel"), s->str);
}

void
fw_inspector_show_node (FwInspector *self, FwNode *node)
{
  g_autoptr(GString) attrs = g_string_new (NULL);
  g_autoptr(GString) inputs = g_string_new (NULL);
  g_autoptr(GString) outputs = g_string_new (NULL);
  g_autoptr(GString) stats = g_string_new (NULL);
  g_autofree char *title = NULL;
  g_autofree char *about = NULL;
  const char *op_type, *domain, *scope;

  g_return_if_fail (FW_IS_INSPECTOR (self));
  g_return_if_fail (node != NULL);

  clear_box (self);
  self->shown_node = node;
  op_type = fw_node_get_op_type (node);
  domain = fw_node_get_domain (node);
  scope = fw_node_get_scope (node);
  title = g_strdup_printf ("%s %s", op_type, fw_node_get_name (node));
  add_heading (self, title, "title-2");
  about = g_strdup_printf (_("Op: %s%s%s\nName: %s\nScope: %s"), op_type,
                           domain && domain[0] ? _(" in domain ") : "",
                           domain && domain[0] ? domain : "", fw_node_get_name (node),
                           scope[0] ? scope : _("(none)"));
  add_text (self, about);
  for (guint i = 0; i < fw_node_get_n_attrs (node); i++)
    append_attr (attrs, fw_node_get_attr_nth (node, i));
  add_section (self, _("Attributes"), attrs->len ? attrs->str : _("(none)"));
  for (guint i = 0; i < fw_node_get_n_inputs (node); i++)
    {
      const FwValue *input = fw_node_get_input (node, i);

      append_value (inputs, input);
      if (input != NULL && fw_value_is_initializer (input))
        append_stats (stats, input);
    }
  for (guint i = 0; i < fw_node_get_n_outputs (node); i++)
    append_value (outputs, fw_node_get_output (node, i));
  add_section (self, _("Inputs"), inputs->len ? inputs->str : _("(none)"));
  add_section (self, _("Outputs"), outputs->len ? outputs->str : _("(none)"));
  if (stats->len)
    add_section (self, _("Initializer statistics"), stats->str);
  add_fusion_section (self, node);
  add_superkernel_section (self, node);
  set_title (self, title);
}

/* ---- candidates ---- */

/* The Verification section: the check's result, the measured saving and what the check found. */
static char *
verification_text (FwInspector *self)
{
  const char *result = self->shown_item ? fw_candidate_item_get_verification (self->shown_item) : NULL;
  const char *detail = fw_project_get_check_detail (self->project, self->shown_candidate);
  gdouble measured = self->shown_item ? fw_candidate_item_get_measured_saved_us (self->shown_item) : NAN;
  GString *s = g_string_new (NULL);

  if (g_strcmp0 (result, "pass") == 0)
    g_string_append (s, _("Result: passed"));
  else if (g_strcmp0 (result, "fail") == 0)
    g_string_append (s, _("Result: failed"));
  else if (g_strcmp0 (result, "unverified") == 0)
    g_string_append (s, _("Result: not verified (the SuperKernel did not compile; the group runs on the reference kernels)"));
  if (!isnan (measured))
    {
      if (s->len)
        g_string_append_c (s, '\n');
      g_string_append_printf (s, _("Measured time saved: %.2f µs"), measured);
    }
  if (detail != NULL && detail[0] != '\0')
    g_string_append_printf (s, "%s%s", s->len ? "\n\n" : "", detail);
  if (s->len == 0)
    g_string_append (s, _("Not verified yet: run Compile and Verify"));
  return g_string_free (s, FALSE);
}

static void
refresh_verification (FwInspector *self)
{
  g_autofree char *text = NULL;

  if (self->verification_label == NULL)
    return;
  text = verification_text (self);
  gtk_label_set_text (GTK_LABEL (self->verification_label), text);
}

static void
on_check_changed (FwInspector *self, guint candidate)
{
  if (candidate == self->shown_candidate)
    refresh_verification (self);
}

static char *
about_text (const FwCandidate *c)
{
  /* A control-flow body's candidate says which body: its nodes are not on the main graph's canvas. */
  if (c->body != NULL)
    return g_strdup_printf (_("Pattern: %s\nKind: %s\nStatus: %s\nIn the body %s"), c->pattern,
                            fw_label_kind (c->kind), fw_label_candidate_status (c->status), c->body);
  return g_strdup_printf (_("Pattern: %s\nKind: %s\nStatus: %s"), c->pattern, fw_label_kind (c->kind),
                          fw_label_candidate_status (c->status));
}

static void
on_plan_changed (FwInspector *self)
{
  FwPlan *plan = fw_project_get_plan (self->project);
  const FwCandidate *c;
  g_autofree char *about = NULL;

  /* Only a node of the project's own graph: the fused view's graph is laid out anew on a change. */
  if (self->shown_node != NULL &&
      g_ptr_array_find (fw_model_get_graph (fw_project_get_model (self->project))->nodes, self->shown_node, NULL))
    {
      fw_inspector_show_node (self, self->shown_node);
      return;
    }
  if (self->about_label == NULL)
    return;
  /* An undo can take back the re-plan that added the candidate on show. */
  if (self->shown_candidate >= plan->candidates->len)
    {
      fw_inspector_clear (self);
      return;
    }
  c = g_ptr_array_index (plan->candidates, self->shown_candidate);
  about = about_text (c);
  gtk_label_set_text (GTK_LABEL (self->about_label), about);
  if (self->accept_button != NULL)
    gtk_widget_set_sensitive (self->accept_button, c->status != FW_CANDIDATE_VETOED);
}

/* Accept, Veto and the pattern-level pair as buttons: without them a decision took the a and v keys or
 * nothing at all. They name the window's actions (win.accept acts on the list's selection, which is the
 * candidate on show), so outside a workbench window they are insensitive. */
static void
add_decision_buttons (FwInspector *self, const FwCandidate *c)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *accept = gtk_button_new_with_label (_("Accept"));
  GtkWidget *veto = gtk_button_new_with_label (_("Veto"));
  GtkWidget *pattern = gtk_menu_button_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenuItem) accept_all = NULL;
  g_autoptr(GMenuItem) veto_all = NULL;
  /* Menu labels take _ as a mnemonic: matmul_bias_gelu would read "matmulbiasgelu". */
  g_auto(GStrv) parts = g_strsplit (c->pattern, "_", -1);
  g_autofree char *escaped = g_strjoinv ("__", parts);
  g_autofree char *accept_label = g_strdup_printf (_("Accept Every “%s”"), escaped);
  g_autofree char *veto_label = g_strdup_printf (_("Veto Every “%s”"), escaped);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (accept), "win.accept");
  gtk_widget_set_sensitive (accept, c->status != FW_CANDIDATE_VETOED);
  self->accept_button = accept;
  gtk_widget_set_tooltip_text (accept, _("Fuse this candidate, whatever later re-planning finds (a)"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (veto), "win.veto");
  gtk_widget_set_tooltip_text (veto, _("Do not fuse this candidate; its operators are planned again without it (v)"));
  accept_all = g_menu_item_new (accept_label, NULL);
  g_menu_item_set_action_and_target_value (accept_all, "win.accept-pattern", g_variant_new_string (c->pattern));
  g_menu_append_item (menu, accept_all);
  veto_all = g_menu_item_new (veto_label, NULL);
  g_menu_item_set_action_and_target_value (veto_all, "win.veto-pattern", g_variant_new_string (c->pattern));
  g_menu_append_item (menu, veto_all);
  gtk_menu_button_set_label (GTK_MENU_BUTTON (pattern), _("Whole Pattern"));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (pattern), G_MENU_MODEL (menu));
  gtk_widget_set_tooltip_text (pattern, _("Decide for every candidate of this pattern, now and after re-planning"));
  gtk_box_append (GTK_BOX (row), accept);
  gtk_box_append (GTK_BOX (row), veto);
  gtk_box_append (GTK_BOX (row), pattern);
  gtk_box_append (GTK_BOX (self->box), row);
}

static gboolean
overlaps (const FwRefusal *r, const FwCandidate *c)
{
  if (r->nodes == NULL)
    return FALSE;
  for (guint i = 0; i < r->nodes->len; i++)
    for (guint k = 0; k < c->nodes->len; k++)
      if (g_ptr_array_index (r->nodes, i) == g_ptr_array_index (c->nodes, k))
        return TRUE;
  return FALSE;
}

/* The sources shown last in the box: each target's source view, or why it has none. */
static void
add_sources (FwInspector *self, const FwKernelSources *sources)
{
  static const struct { const char *title; const char *language; } shown[FW_N_TARGETS] = {
    [FW_TARGET_HOST] = { N_("Host SuperKernel (C)"), "c" },
    [FW_TARGET_ASCEND] = { N_("Ascend C kernel"), "cpp" },
  };

  for (guint t = 0; t < FW_N_TARGETS; t++)
    {
      const char *source = fw_kernel_sources_get_source (sources, t);
      const char *error = fw_kernel_sources_get_error (sources, t);

      if (source != NULL)
        add_source (self, _(shown[t].title), source, shown[t].language, sources, t);
      else
        add_section (self, _(shown[t].title), error ? error : "");
    }
}

typedef struct
{
  FwInspector *self;
  guint        request;
} Request;

static void request_sources (FwInspector *self);

static void
on_sources_generated (GObject *object, GAsyncResult *result, gpointer data)
{
  Request *req = data;
  FwInspector *self = req->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwKernelSources) sources = fw_kernel_sources_generate_finish (FW_PROJECT (object), result, &error);

  /* Dropped when the inspector moved on (another selection, cleared, another project, disposed). */
  if (req->request == self->pending && self->project == FW_PROJECT (object))
    {
      self->pending = 0;
      if (sources != NULL && fw_kernel_sources_get_revision (sources) != fw_project_get_revision (self->project)
          && self->shown_candidate < fw_project_get_plan (self->project)->candidates->len)
        request_sources (self);   /* the plan changed meanwhile: again, for the plan as it is */
      else
        {
          gtk_box_remove (GTK_BOX (self->box), self->placeholder_heading);
          gtk_box_remove (GTK_BOX (self->box), self->placeholder_label);
          self->placeholder_heading = self->placeholder_label = NULL;
          if (sources != NULL)
            add_sources (self, sources);
          else
            add_section (self, _("Generated kernels"), error->message);
        }
    }
  g_object_unref (self);
  g_free (req);
}

/* Generates the shown candidate's sources in a worker, a placeholder standing in for them meanwhile. */
static void
request_sources (FwInspector *self)
{
  Request *req = g_new0 (Request, 1);

  if (self->placeholder_label == NULL)
    {
      self->placeholder_label = add_section (self, _("Generated kernels"), _("Generating…"));
      /* Never focused: GTK 4.8 trips over a focused selectable label removed between two frames (a
       * critical about a widget that is gone, in the next layout). */
      gtk_label_set_selectable (GTK_LABEL (self->placeholder_label), FALSE);
      self->placeholder_heading = gtk_widget_get_prev_sibling (self->placeholder_label);
    }
  req->self = g_object_ref (self);
  req->request = self->pending = ++self->n_requests;
  fw_kernel_sources_generate_async (self->project, self->shown_candidate, NULL, on_sources_generated, req);
}

void
fw_inspector_show_candidate (FwInspector *self, guint candidate)
{
  FwPlan *plan;
  const FwCandidate *c;
  const FwResourceEstimate *res;
  const FwCostEstimate *cost;
  g_autoptr(GString) nodes = g_string_new (NULL);
  g_autoptr(GString) refusals = g_string_new (NULL);
  g_autofree char *title = NULL;
  g_autofree char *about = NULL;
  g_autofree char *resource = NULL;
  g_autofree char *figures = NULL;
  FwKernelSources *sources;

  g_return_if_fail (FW_IS_INSPECTOR (self));
  if (self->project == NULL)
    return;
  plan = fw_project_get_plan (self->project);
  if (candidate >= plan->candidates->len)
    {
      fw_inspector_clear (self);
      return;
    }
  c = g_ptr_array_index (plan->candidates, candidate);
  res = fw_candidate_get_resource (c);
  cost = fw_candidate_get_cost (c);

  clear_box (self);
  self->shown_candidate = candidate;
  self->shown_item = g_list_model_get_item (fw_project_get_candidates (self->project), candidate);
  if (self->shown_item != NULL)
    {
      g_signal_connect_swapped (self->shown_item, "notify::verification", G_CALLBACK (refresh_verification),
                                self);
      g_signal_connect_swapped (self->shown_item, "notify::measured-saved-us",
                                G_CALLBACK (refresh_verification), self);
    }
  title = g_strdup_printf (_("Candidate #%u: %s"), c->index, c->pattern);
  add_heading (self, title, "title-2");
  about = about_text (c);
  self->about_label = add_text (self, about);
  add_decision_buttons (self, c);
  for (guint i = 0; i < c->nodes->len; i++)
    {
      const FwNode *n = g_ptr_array_index (c->nodes, i);
      g_string_append_printf (nodes, "%s  %s\n", fw_node_get_op_type (n), fw_node_get_name (n));
    }
  add_section (self, _("Nodes"), nodes->str);
  resource = g_strdup_printf (_("Tile: %" PRId64 " elements, %" PRId64 " rows\n"
                                "UB: %.0f of %.0f bytes (%.1f %%)\nQueues: %u\nInputs: %u, outputs: %u"),
                              (int64_t) res->tile_elements, (int64_t) res->tile_rows, res->ub_bytes, res->ub_budget_bytes,
                              res->ub_percent, res->queues, res->kernel_inputs, res->kernel_outputs);
  add_section (self, _("Resources"), resource);
  figures = g_strdup_printf (_("HBM bytes: %.0f before, %.0f after\nLaunches: %u before, %u after\n"
                               "Time: %.2f µs before, %.2f µs after"),
                             cost->bytes_read_before + cost->bytes_written_before,
                             cost->bytes_read_after + cost->bytes_written_after, cost->launches_before,
                             cost->launches_after, cost->time_before_s * 1e6, cost->time_after_s * 1e6);
  add_section (self, _("Cost"), figures);
  {
    g_autofree char *verification = verification_text (self);

    self->verification_label = add_section (self, _("Verification"), verification);
    /* Compile errors and error tables line up in columns. */
    gtk_widget_add_css_class (self->verification_label, "monospace");
  }

  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);

      if (r->candidate != c->index && !overlaps (r, c))
        continue;
      g_string_append_printf (refusals, "%s %s: %s\n", fw_reason_code_string (r->code),
                              fw_reason_code_title (r->code), r->message ? r->message : "");
    }
  add_section (self, _("Refusals nearby"), refusals->len ? refusals->str : _("(none)"));

  sources = fw_project_get_kernel_sources (self->project, candidate);
  if (sources != NULL)
    add_sources (self, sources);
  else
    request_sources (self);
  set_title (self, title);
}

void
fw_inspector_clear (FwInspector *self)
{
  g_return_if_fail (FW_IS_INSPECTOR (self));

  clear_box (self);
  add_text (self, _("Select a node or a candidate to see its details."));
  set_title (self, "");
}

const char *
fw_inspector_get_title (FwInspector *self)
{
  g_return_val_if_fail (FW_IS_INSPECTOR (self), NULL);
  return self->title ? self->title : "";
}

gboolean
fw_inspector_get_generating (FwInspector *self)
{
  g_return_val_if_fail (FW_IS_INSPECTOR (self), FALSE);
  return self->pending != 0;
}

guint
fw_inspector_get_n_generated (FwInspector *self)
{
  g_return_val_if_fail (FW_IS_INSPECTOR (self), 0);
  return self->n_requests;
}

char *
fw_inspector_get_marked_lines (FwInspector *self)
{
  GString *lines = g_string_new (NULL);

  g_return_val_if_fail (FW_IS_INSPECTOR (self), NULL);
  for (GtkWidget *child = gtk_widget_get_first_child (self->box); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *view = GTK_IS_SCROLLED_WINDOW (child) ? gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (child))
                                                        : NULL;
      GtkTextBuffer *buffer;
      GtkTextTag *tag;

      if (view != NULL && GTK_IS_VIEWPORT (view))
        view = gtk_viewport_get_child (GTK_VIEWPORT (view));
      if (view == NULL || !GTK_IS_TEXT_VIEW (view))
        continue;
      buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
      tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), DIAGNOSTIC_TAG);
      for (gint line = 0; tag != NULL && line < gtk_text_buffer_get_line_count (buffer); line++)
        {
          GtkTextIter at;

          gtk_text_buffer_get_iter_at_line (buffer, &at, line);
          if (gtk_text_iter_has_tag (&at, tag))
            g_string_append_printf (lines, "%s%d", lines->len ? " " : "", line + 1);
        }
    }
  return g_string_free (lines, FALSE);
}

const char *
fw_inspector_get_verification_text (FwInspector *self)
{
  g_return_val_if_fail (FW_IS_INSPECTOR (self), NULL);
  return self->verification_label ? gtk_label_get_text (GTK_LABEL (self->verification_label)) : "";
}

void
fw_inspector_set_project (FwInspector *self, FwProject *project)
{
  g_return_if_fail (FW_IS_INSPECTOR (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  forget_candidate (self);
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  if (project != NULL)
    {
      g_signal_connect_swapped (project, "check-changed", G_CALLBACK (on_check_changed), self);
      g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (on_plan_changed), self);
    }
  fw_inspector_clear (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

/* ---- the object ---- */

static void
fw_inspector_dispose (GObject *object)
{
  FwInspector *self = FW_INSPECTOR (object);

  forget_candidate (self);
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_clear_object (&self->project);
  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  G_OBJECT_CLASS (fw_inspector_parent_class)->dispose (object);
}

static void
fw_inspector_finalize (GObject *object)
{
  FwInspector *self = FW_INSPECTOR (object);

  g_free (self->title);
  g_ptr_array_unref (self->source_buffers);
  G_OBJECT_CLASS (fw_inspector_parent_class)->finalize (object);
}

static void
fw_inspector_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwInspector *self = FW_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_PROJECT: g_value_set_object (value, self->project); break;
    case PROP_TITLE: g_value_set_string (value, fw_inspector_get_title (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_inspector_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwInspector *self = FW_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_PROJECT: fw_inspector_set_project (self, g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_inspector_class_init (FwInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_inspector_dispose;
  object_class->finalize = fw_inspector_finalize;
  object_class->get_property = fw_inspector_get_property;
  object_class->set_property = fw_inspector_set_property;

  properties[PROP_PROJECT] = g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                  G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, "",
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "fwinspector");
#ifdef FW_HAVE_GTKSOURCEVIEW
  gtk_source_init ();
#endif
}

static void
fw_inspector_init (FwInspector *self)
{
  self->shown_candidate = G_MAXUINT;
  self->source_buffers = g_ptr_array_new_with_free_func (g_object_unref);
#ifdef FW_HAVE_GTKSOURCEVIEW
  if (adw_is_initialized ())
    g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (on_theme_changed),
                             self, G_CONNECT_SWAPPED);
  else if (gtk_settings_get_default () != NULL)
    g_signal_connect_object (gtk_settings_get_default (), "notify::gtk-application-prefer-dark-theme",
                             G_CALLBACK (on_theme_changed), self, G_CONNECT_SWAPPED);
#endif
  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (self->box, 12);
  gtk_widget_set_margin_end (self->box, 12);
  gtk_widget_set_margin_top (self->box, 12);
  gtk_widget_set_margin_bottom (self->box, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), self->box);
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
  fw_inspector_clear (self);
}

GtkWidget *
fw_inspector_new (void)
{
  return g_object_new (FW_TYPE_INSPECTOR, NULL);
}
