/* fw-candidate-list.c: the candidate list: the project's candidates through a filter, the column view's
 * sorter and a multiple selection; `a` and `v` decide the selected rows through the project. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "fw-candidate-list.h"
#include "fw-value-labels.h"

struct _FwCandidateList
{
  GtkWidget           parent_instance;
  FwProject          *project;
  GtkWidget          *scrolled;
  GtkColumnView      *column_view;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GtkMultiSelection  *selection;
  GtkCustomFilter    *filter;
  char               *filter_text;    /* casefolded */
  char               *filter_status;
  guint               selected;       /* candidate of the first selected row, G_MAXUINT none */
  GtkWidget          *context_menu;   /* the rows' right-click menu, made when first needed */
};

G_DEFINE_FINAL_TYPE (FwCandidateList, fw_candidate_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_FILTER_TEXT,
  PROP_FILTER_STATUS,
  N_PROPS
};

enum {
  CANDIDATE_SELECTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- cells ---- */

typedef char *(*CellFormat) (FwCandidateItem *item);

typedef struct
{
  const char *id;
  const char *title;       /* N_() */
  const char *property;    /* the item property the cell shows and the column sorts by */
  CellFormat  format;
  gboolean    numeric;
} ColumnInfo;

/* A body's candidate names its body: "layernorm · /Loop_0/body". */
static char *
format_pattern (FwCandidateItem *item)
{
  const char *body = fw_candidate_item_get_body (item);

  if (body != NULL)
    return g_strdup_printf ("%s · %s", fw_candidate_item_get_pattern (item), body);
  return g_strdup (fw_candidate_item_get_pattern (item));
}

/* The part of a candidate's scope that tells it from its neighbours, for a narrow column: from the last
 * component holding a digit (the layer or block: "layers.3", "encoder_layer_3" shortened to its last two
 * words, "layer_3") to the end, else the last two components. The whole scope is the cell's tooltip. */
static char *
format_location (FwCandidateItem *item)
{
  const char *where = fw_candidate_item_get_location (item);
  g_auto(GStrv) parts = g_strsplit (where, "/", -1);
  guint n = g_strv_length (parts), from = n > 2 ? n - 2 : 0;
  g_autofree char *tail = NULL;
  const char *layer;

  for (guint k = n; k-- > 0;)
    if (strpbrk (parts[k], "0123456789") != NULL)
      {
        from = k;
        break;
      }
  tail = g_strjoinv ("/", parts + from);
  layer = from < n ? parts[from] : "";
  if (strpbrk (layer, "0123456789") != NULL && strlen (layer) > 8)
    {
      const char *last = strrchr (layer, '_');
      const char *word = last;

      while (word != NULL && word > layer && word[-1] != '_')
        word--;
      if (last != NULL && word > layer)
        return g_strdup (tail + (word - layer));
    }
  return g_steal_pointer (&tail);
}

static char *
format_nodes (FwCandidateItem *item)
{
  return g_strdup_printf ("%u", fw_candidate_item_get_n_nodes (item));
}

static char *
format_ub (FwCandidateItem *item)
{
  return g_strdup_printf ("%.1f %%", fw_candidate_item_get_ub_percent (item));
}

static char *
format_bytes (FwCandidateItem *item)
{
  gdouble bytes = fw_candidate_item_get_bytes_saved (item);
  g_autofree char *size = g_format_size ((guint64) fabs (bytes));

  /* A fusion that moves more bytes than it saves is shown as a negative saving, not hidden. */
  return bytes < 0 ? g_strdup_printf ("−%s", size) : g_steal_pointer (&size);
}

static char *
format_launches (FwCandidateItem *item)
{
  return g_strdup_printf ("%u", fw_candidate_item_get_launches_saved (item));
}

static char *
format_time (FwCandidateItem *item)
{
  /* TRANSLATORS: microseconds */
  return g_strdup_printf (_("%.2f µs"), fw_candidate_item_get_time_saved_us (item));
}

static char *
format_measured (FwCandidateItem *item)
{
  gdouble us = fw_candidate_item_get_measured_saved_us (item);

  if (isnan (us))
    return g_strdup ("—");
  return g_strdup_printf (_("%.2f µs"), us);
}

static char *
format_verification (FwCandidateItem *item)
{
  return g_strdup (fw_label_verification (fw_candidate_item_get_verification (item)));
}

static char *
format_twin (FwCandidateItem *item)
{
  return g_strdup (fw_label_verification (fw_candidate_item_get_twin (item)));
}

static char *
format_status (FwCandidateItem *item)
{
  return g_strdup (fw_label_status (fw_candidate_item_get_status (item)));
}

/* Decision and verification next to the pattern: the side pane is narrow, and they are what a user scans
 * the list for after deciding and checking. */
static const ColumnInfo columns[] = {
  { "pattern", N_("Pattern"), "pattern", format_pattern, FALSE },
  /* Translators: the column naming where in the model a candidate sits (its nodes' name scope) */
  { "location", N_("Location"), "location", format_location, FALSE },
  { "decision", N_("Decision"), "status", format_status, FALSE },
  { "verification", N_("Verification"), "verification", format_verification, FALSE },
  /* Translators: the column of each Ascend kernel's result on the Ascend C twin */
  { "twin", N_("Twin"), "twin", format_twin, FALSE },
  { "nodes", N_("Nodes"), "n-nodes", format_nodes, TRUE },
  { "ub", N_("UB"), "ub-percent", format_ub, TRUE },
  { "bytes", N_("HBM saved"), "bytes-saved", format_bytes, TRUE },
  { "launches", N_("Launches saved"), "launches-saved", format_launches, TRUE },
  { "time", N_("Est. saved"), "time-saved-us", format_time, TRUE },
  { "measured", N_("Measured"), "measured-saved-us", format_measured, TRUE },
};

static const char * const status_classes[] = {
  "fw-status-proposed", "fw-status-accepted", "fw-status-vetoed", "fw-status-refused", NULL
};

static void
cell_update (GtkListItem *list_item)
{
  const ColumnInfo *info = g_object_get_data (G_OBJECT (list_item), "fw-column");
  GtkWidget *label = gtk_list_item_get_child (list_item);
  FwCandidateItem *item = gtk_list_item_get_item (list_item);
  g_autofree char *text = NULL;

  if (item == NULL || label == NULL)
    return;
  text = info->format (item);
  gtk_inscription_set_text (GTK_INSCRIPTION (label), text);
  /* Pattern names of rules and name scopes run long ("MatMul+elementwise_chain"): the whole text on hover. */
  if (strcmp (info->id, "pattern") == 0)
    gtk_widget_set_tooltip_text (label, text);
  else if (strcmp (info->id, "location") == 0)
    gtk_widget_set_tooltip_text (label, fw_candidate_item_get_location (item));
  if (strcmp (info->id, "decision") == 0)
    {
      g_autofree char *css = g_strdup_printf ("fw-status-%s", fw_candidate_item_get_status (item));

      for (guint i = 0; status_classes[i]; i++)
        gtk_widget_remove_css_class (label, status_classes[i]);
      gtk_widget_add_css_class (label, css);
    }
}

static void popup_context_menu (FwCandidateList *self, guint candidate, GtkWidget *at, gdouble x, gdouble y);

static void
on_cell_secondary (GtkGestureClick *click, gint n_press, gdouble x, gdouble y, GtkListItem *list_item)
{
  GtkWidget *label = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (click));
  GtkWidget *list = gtk_widget_get_ancestor (label, FW_TYPE_CANDIDATE_LIST);
  FwCandidateItem *item = gtk_list_item_get_item (list_item);
  FwCandidateList *self;
  guint position = gtk_list_item_get_position (list_item);

  if (list == NULL || item == NULL || position == GTK_INVALID_LIST_POSITION)
    return;
  self = FW_CANDIDATE_LIST (list);
  if (!gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->selection), position))
    gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), position, TRUE);
  gtk_gesture_set_state (GTK_GESTURE (click), GTK_EVENT_SEQUENCE_CLAIMED);
  popup_context_menu (self, fw_candidate_item_get_index (item), label, x, y);
}

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer data)
{
  const ColumnInfo *info = data;
  GtkWidget *label = gtk_inscription_new (NULL);

  if (info->numeric)
    {
      gtk_inscription_set_xalign (GTK_INSCRIPTION (label), 1.0);
      gtk_widget_add_css_class (label, "numeric");
    }
  /* The pattern column holds the longest words, and the others shrink to let it show them. A cut text
     ends in an ellipsis, so nobody takes it for the whole. */
  gtk_inscription_set_min_chars (GTK_INSCRIPTION (label),
                                 info->numeric ? 8 : strcmp (info->id, "pattern") == 0 ? 16 : 12);
  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (label), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  g_object_set_data (G_OBJECT (list_item), "fw-column", (gpointer) info);
  gtk_list_item_set_child (list_item, label);
  /* A right click selects the row (unless it is among the selected ones) and opens its menu. */
  {
    GtkGesture *click = gtk_gesture_click_new ();

    gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
    g_signal_connect (click, "pressed", G_CALLBACK (on_cell_secondary), list_item);
    gtk_widget_add_controller (label, GTK_EVENT_CONTROLLER (click));
  }
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer data)
{
  const ColumnInfo *info = data;
  FwCandidateItem *item = gtk_list_item_get_item (list_item);
  g_autofree char *signal = g_strdup_printf ("notify::%s", info->property);
  gulong id;

  /* Items change in place when the plan changes, so the cell follows its property. */
  id = g_signal_connect_object (item, signal, G_CALLBACK (cell_update), list_item, G_CONNECT_SWAPPED);
  g_object_set_data (G_OBJECT (list_item), "fw-handler", GSIZE_TO_POINTER (id));
  cell_update (list_item);
}

static void
cell_unbind (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer data)
{
  FwCandidateItem *item = gtk_list_item_get_item (list_item);
  gulong id = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (list_item), "fw-handler"));

  if (item != NULL && id != 0)
    g_signal_handler_disconnect (item, id);
  g_object_set_data (G_OBJECT (list_item), "fw-handler", NULL);
}

static GtkSorter *
sorter_for (const ColumnInfo *info)
{
  GtkExpression *expression = gtk_property_expression_new (FW_TYPE_CANDIDATE_ITEM, NULL, info->property);

  if (info->numeric)
    return GTK_SORTER (gtk_numeric_sorter_new (expression));
  return GTK_SORTER (gtk_string_sorter_new (expression));
}

/* ---- filtering and selection ---- */

static gboolean
filter_func (gpointer object, gpointer data)
{
  FwCandidateList *self = data;
  FwCandidateItem *item = object;

  if (self->filter_status != NULL && self->filter_status[0] != '\0' &&
      g_strcmp0 (fw_candidate_item_get_status (item), self->filter_status) != 0)
    return FALSE;
  if (self->filter_text != NULL && self->filter_text[0] != '\0' &&
      strstr (fw_candidate_item_get_search_text (item), self->filter_text) == NULL)
    return FALSE;
  return TRUE;
}

static guint
first_selected (FwCandidateList *self)
{
  g_autoptr(GtkBitset) set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  g_autoptr(FwCandidateItem) item = NULL;

  if (gtk_bitset_is_empty (set))
    return G_MAXUINT;
  item = g_list_model_get_item (G_LIST_MODEL (self->selection), gtk_bitset_get_minimum (set));
  return item ? fw_candidate_item_get_index (item) : G_MAXUINT;
}

static void
selection_changed (FwCandidateList *self)
{
  guint candidate = first_selected (self);

  if (candidate == self->selected)
    return;
  self->selected = candidate;
  if (candidate != G_MAXUINT)
    g_signal_emit (self, signals[CANDIDATE_SELECTED], 0, candidate);
}

/* Statuses and figures changed in place: the filter and the order may no longer hold. */
static void
plan_changed (FwCandidateList *self)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (self->column_view);

  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  if (sorter != NULL)
    gtk_sorter_changed (sorter, GTK_SORTER_CHANGE_DIFFERENT);
}

static gint
compare_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

GArray *
fw_candidate_list_get_selection (FwCandidateList *self)
{
  g_autoptr(GtkBitset) set = NULL;
  GtkBitsetIter iter;
  GArray *out;
  guint position;

  g_return_val_if_fail (FW_IS_CANDIDATE_LIST (self), NULL);

  out = g_array_new (FALSE, FALSE, sizeof (guint));
  set = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  for (gboolean ok = gtk_bitset_iter_init_first (&iter, set, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
      guint index;

      if (item == NULL)
        continue;
      index = fw_candidate_item_get_index (item);
      g_array_append_val (out, index);
    }
  g_array_sort (out, compare_uint);
  return out;
}

static void
decide_selected (FwCandidateList *self, gboolean accept)
{
  g_autoptr(GArray) chosen = NULL;
  GListModel *items;

  if (self->project == NULL)
    return;
  chosen = fw_candidate_list_get_selection (self);
  items = fw_project_get_candidates (self->project);
  for (guint i = 0; i < chosen->len; i++)
    {
      guint index = g_array_index (chosen, guint, i);
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, index);
      g_autoptr(GError) error = NULL;
      const char *status = item ? fw_candidate_item_get_status (item) : NULL;

      /* Deciding again what already holds would only lengthen the undo history. */
      if (g_strcmp0 (status, accept ? "accepted" : "vetoed") == 0)
        continue;
      if (!(accept ? fw_project_accept (self->project, index, &error)
                   : fw_project_veto (self->project, index, &error)))
        {
          /* A vetoed row cannot be accepted (undo is the way back); the list shows why by its status. */
          g_debug ("candidate #%u: %s", index, error->message);
          gtk_widget_error_bell (GTK_WIDGET (self));
        }
    }
}

void
fw_candidate_list_accept_selected (FwCandidateList *self)
{
  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));
  decide_selected (self, TRUE);
}

void
fw_candidate_list_veto_selected (FwCandidateList *self)
{
  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));
  decide_selected (self, FALSE);
}

static void
accept_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  fw_candidate_list_accept_selected (FW_CANDIDATE_LIST (widget));
}

static void
veto_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  fw_candidate_list_veto_selected (FW_CANDIDATE_LIST (widget));
}

/* ---- the context menu ---- */

/* Accept and Veto (of the selected rows, as `a` and `v`), then every candidate of the row's pattern, now and
 * after re-planning: the window's win.* actions, so each is one decision to undo. */
GMenuModel *
fw_candidate_list_context_menu (FwCandidateList *self, guint candidate)
{
  g_autoptr(FwCandidateItem) item = NULL;
  g_autoptr(GMenu) rows = g_menu_new ();
  g_autoptr(GMenu) pattern = g_menu_new ();
  GMenu *menu;

  g_return_val_if_fail (FW_IS_CANDIDATE_LIST (self), NULL);
  if (self->project != NULL)
    item = g_list_model_get_item (fw_project_get_candidates (self->project), candidate);
  menu = g_menu_new ();
  g_menu_append (rows, _("_Accept"), "win.accept");
  g_menu_append (rows, _("_Veto"), "win.veto");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (rows));
  if (item != NULL)
    {
      const char *name = fw_candidate_item_get_pattern (item);
      /* Menu labels take "_" as a mnemonic mark: pattern names are full of them. */
      g_auto(GStrv) parts = g_strsplit (name, "_", -1);
      g_autofree char *shown = g_strjoinv ("__", parts);
      /* Translators: %s is a pattern name; every candidate of it is accepted, also those re-planning adds */
      g_autofree char *accept = g_strdup_printf (_("Accept Every “%s”"), shown);
      /* Translators: %s is a pattern name; every candidate of it is vetoed, also those re-planning adds */
      g_autofree char *veto = g_strdup_printf (_("Veto Every “%s”"), shown);
      const struct { const char *label, *action; } entries[] = {
        { accept, "win.accept-pattern" },
        { veto, "win.veto-pattern" },
      };

      for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
        {
          g_autoptr(GMenuItem) entry = g_menu_item_new (entries[i].label, NULL);

          g_menu_item_set_action_and_target_value (entry, entries[i].action, g_variant_new_string (name));
          g_menu_append_item (pattern, entry);
        }
      g_menu_append_section (menu, NULL, G_MENU_MODEL (pattern));
    }
  return G_MENU_MODEL (menu);
}

static void
popup_context_menu (FwCandidateList *self, guint candidate, GtkWidget *at, gdouble x, gdouble y)
{
  g_autoptr(GMenuModel) model = fw_candidate_list_context_menu (self, candidate);
  gdouble lx = x, ly = y;

  if (self->context_menu == NULL)
    {
      self->context_menu = gtk_popover_menu_new_from_model (NULL);
      gtk_popover_set_has_arrow (GTK_POPOVER (self->context_menu), FALSE);
      gtk_widget_set_halign (self->context_menu, GTK_ALIGN_START);
      gtk_widget_set_parent (self->context_menu, GTK_WIDGET (self));
    }
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->context_menu), model);
  if (at != NULL)
    gtk_widget_translate_coordinates (at, GTK_WIDGET (self), x, y, &lx, &ly);
  gtk_popover_set_pointing_to (GTK_POPOVER (self->context_menu), &(GdkRectangle) { (int) lx, (int) ly, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->context_menu));
}

void
fw_candidate_list_popup_context_menu (FwCandidateList *self)
{
  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));
  if (self->selected == G_MAXUINT)
    return;
  popup_context_menu (self, self->selected, NULL, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
                      gtk_widget_get_height (GTK_WIDGET (self)) / 3.0);
}

static void
menu_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  fw_candidate_list_popup_context_menu (FW_CANDIDATE_LIST (widget));
}

/* ---- the object ---- */

static void
fw_candidate_list_dispose (GObject *object)
{
  FwCandidateList *self = FW_CANDIDATE_LIST (object);

  fw_candidate_list_set_project (self, NULL);
  g_clear_pointer (&self->context_menu, gtk_widget_unparent);
  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  G_OBJECT_CLASS (fw_candidate_list_parent_class)->dispose (object);
}

static void
fw_candidate_list_finalize (GObject *object)
{
  FwCandidateList *self = FW_CANDIDATE_LIST (object);

  g_free (self->filter_text);
  g_free (self->filter_status);
  G_OBJECT_CLASS (fw_candidate_list_parent_class)->finalize (object);
}

static void
fw_candidate_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwCandidateList *self = FW_CANDIDATE_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT: g_value_set_object (value, self->project); break;
    case PROP_FILTER_TEXT: g_value_set_string (value, self->filter_text ? self->filter_text : ""); break;
    case PROP_FILTER_STATUS: g_value_set_string (value, self->filter_status ? self->filter_status : ""); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_candidate_list_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwCandidateList *self = FW_CANDIDATE_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT: fw_candidate_list_set_project (self, g_value_get_object (value)); break;
    case PROP_FILTER_TEXT: fw_candidate_list_set_filter_text (self, g_value_get_string (value)); break;
    case PROP_FILTER_STATUS: fw_candidate_list_set_filter_status (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_candidate_list_class_init (FwCandidateListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_candidate_list_dispose;
  object_class->finalize = fw_candidate_list_finalize;
  object_class->get_property = fw_candidate_list_get_property;
  object_class->set_property = fw_candidate_list_set_property;

  properties[PROP_PROJECT] = g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                  G_PARAM_STATIC_STRINGS);
  properties[PROP_FILTER_TEXT] = g_param_spec_string ("filter-text", NULL, NULL, "",
                                                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                      G_PARAM_STATIC_STRINGS);
  properties[PROP_FILTER_STATUS] = g_param_spec_string ("filter-status", NULL, NULL, "",
                                                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                        G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[CANDIDATE_SELECTED] = g_signal_new ("candidate-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "candidates.accept", NULL, accept_action);
  gtk_widget_class_install_action (widget_class, "candidates.veto", NULL, veto_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, 0, "candidates.accept", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_v, 0, "candidates.veto", NULL);
  /* The keyboard's way to the row menu. */
  gtk_widget_class_install_action (widget_class, "candidates.menu", NULL, menu_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "candidates.menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, "candidates.menu", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "fwcandidatelist");
}

static void
fw_candidate_list_init (FwCandidateList *self)
{
  GtkSorter *sorter;

  self->selected = G_MAXUINT;
  self->filter = gtk_custom_filter_new (filter_func, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->column_view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (self->filtered), NULL);
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (self->sorted));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_object_unref (self->selection);
  gtk_column_view_set_show_column_separators (self->column_view, TRUE);
  gtk_column_view_set_reorderable (self->column_view, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "data-table");

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      GtkSorter *column_sorter = sorter_for (&columns[i]);

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) &columns[i]);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), (gpointer) &columns[i]);
      g_signal_connect (factory, "unbind", G_CALLBACK (cell_unbind), (gpointer) &columns[i]);
      column = gtk_column_view_column_new (_(columns[i].title), factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, i == 0);
      gtk_column_view_column_set_sorter (column, column_sorter);
      gtk_column_view_append_column (self->column_view, column);
      g_object_unref (column_sorter);
      g_object_unref (column);
    }
  sorter = gtk_column_view_get_sorter (self->column_view);
  gtk_sort_list_model_set_sorter (self->sorted, sorter);

  g_signal_connect_object (self->selection, "selection-changed", G_CALLBACK (selection_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "items-changed", G_CALLBACK (selection_changed), self,
                           G_CONNECT_SWAPPED);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), GTK_WIDGET (self->column_view));
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
}

GtkWidget *
fw_candidate_list_new (void)
{
  return g_object_new (FW_TYPE_CANDIDATE_LIST, NULL);
}

void
fw_candidate_list_set_project (FwCandidateList *self, FwProject *project)
{
  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (self->project, self);
  g_set_object (&self->project, project);
  if (project != NULL)
    g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (plan_changed), self);
  gtk_filter_list_model_set_model (self->filtered, project ? fw_project_get_candidates (project) : NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

FwProject *
fw_candidate_list_get_project (FwCandidateList *self)
{
  g_return_val_if_fail (FW_IS_CANDIDATE_LIST (self), NULL);
  return self->project;
}

void
fw_candidate_list_set_filter_text (FwCandidateList *self, const char *text)
{
  g_autofree char *folded = NULL;

  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));

  folded = g_utf8_casefold (text ? text : "", -1);
  if (g_strcmp0 (folded, self->filter_text ? self->filter_text : "") == 0)
    return;
  g_free (self->filter_text);
  self->filter_text = g_steal_pointer (&folded);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILTER_TEXT]);
}

void
fw_candidate_list_set_filter_status (FwCandidateList *self, const char *status)
{
  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));

  if (g_strcmp0 (status ? status : "", self->filter_status ? self->filter_status : "") == 0)
    return;
  g_free (self->filter_status);
  self->filter_status = g_strdup (status);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILTER_STATUS]);
}

/* The column view's list: GTK 4.8 has no gtk_column_view_scroll_to, but its list view has the
 * "list.scroll-to-item" action. */
static GtkWidget *
inner_list_view (FwCandidateList *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->column_view)); child;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      return child;
  return NULL;
}

void
fw_candidate_list_select (FwCandidateList *self, guint candidate)
{
  GListModel *rows;
  guint n;

  g_return_if_fail (FW_IS_CANDIDATE_LIST (self));

  rows = G_LIST_MODEL (self->selection);
  n = g_list_model_get_n_items (rows);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (rows, i);
      GtkWidget *list;

      if (fw_candidate_item_get_index (item) != candidate)
        continue;
      gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), i, TRUE);
      list = inner_list_view (self);
      if (list != NULL)
        gtk_widget_activate_action (list, "list.scroll-to-item", "u", i);
      return;
    }
}
