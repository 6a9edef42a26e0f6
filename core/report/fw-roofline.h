/* fw-roofline.h: the plan in two pictures (docs/design.md §7, "Pictures"), drawn with cairo, without a
 * display.
 *
 * The roofline: every candidate at its arithmetic intensity (FLOPs per byte of HBM traffic) against its
 * throughput (FLOPs per second), both on log scales, once unfused (each node its own kernel) and once fused,
 * joined by an arrow, under the roof of the plan's profile, min (peak, intensity × HBM bandwidth), with the
 * ridge point marked. The summary: kernels, HBM traffic and estimated time of the original graph, of the
 * planner's proposal and of the plan as the user's decisions left it, side by side.
 *
 * Every number is the planner's estimate (FwCostEstimate per candidate, FwPlanTotals for the whole graph);
 * nothing here is measured or priced again. The data is a snapshot that owns its strings, so it stays valid
 * after the plan changes or is rebuilt by an undo. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  guint              index;              /* the candidate's index in the plan */
  char              *pattern;            /* its pattern, valid UTF-8 */
  FwCandidateStatus  status;
  guint              n_nodes;
  gdouble            flops;
  gdouble            bytes_before;       /* HBM read + written with every node its own kernel */
  gdouble            bytes_after;        /* HBM read + written by the fused kernel */
  gdouble            time_before_s;
  gdouble            time_after_s;
  gdouble            intensity_before;   /* flops / bytes_before, FLOP/byte; 0 without traffic */
  gdouble            intensity_after;    /* flops / bytes_after */
  gdouble            achieved_before;    /* flops / time_before_s, FLOP/s: what the estimate reaches */
  gdouble            achieved_after;     /* flops / time_after_s */
  gdouble            attainable_before;  /* the roof at intensity_before */
  gdouble            attainable_after;   /* the roof at intensity_after */
  gboolean           plotted;            /* FALSE without arithmetic, traffic or time: no place on log axes */
} FwRooflinePoint;

typedef enum {
  FW_SUMMARY_ORIGINAL,    /* every node its own kernel (FwPlan.before) */
  FW_SUMMARY_PROPOSED,    /* what the planner proposed, before any decision (FwPlan.proposed) */
  FW_SUMMARY_DECISIONS,   /* the plan now, with the user's decisions (FwPlan.after) */
  FW_SUMMARY_N_COLUMNS
} FwSummaryColumn;

typedef struct
{
  char          *profile;               /* the profile's name */
  gdouble        peak_flops_per_s;      /* the roof: the larger of the cube's and the vector units' peak */
  gdouble        vector_flops_per_s;    /* the vector units' ceiling, where elementwise work runs */
  gdouble        hbm_bytes_per_s;
  gdouble        ridge_intensity;       /* peak / bandwidth: where the roof turns flat */
  GArray        *points;                /* FwRooflinePoint, one per candidate, by index */
  guint          n_unplotted;           /* points with plotted FALSE */
  FwPlanTotals   columns[FW_SUMMARY_N_COLUMNS];
  /* The roofline's axes: whole decades around every plotted point, the ridge and the peak. */
  gdouble        x_min, x_max;          /* FLOP/byte */
  gdouble        y_min, y_max;          /* FLOP/s */
} FwRooflineData;

typedef struct
{
  guint     highlight;    /* candidate drawn emphasised and labelled, G_MAXUINT for none */
  gboolean  dark;         /* light lines and text, for a dark theme */
  gboolean  background;   /* paint a background (files); a view leaves its theme's */
} FwChartOptions;

void                   fw_chart_options_init      (FwChartOptions        *options);

FwRooflineData        *fw_roofline_data_new       (const FwPlan          *plan);
void                   fw_roofline_data_free      (FwRooflineData        *data);
/* The point of candidate, or NULL when the plan had no such candidate. */
const FwRooflinePoint *fw_roofline_data_find      (const FwRooflineData  *data,
                                                   guint                  candidate);
/* The roof at intensity: min (peak, intensity × bandwidth), FLOP/s. */
gdouble                fw_roofline_attainable     (const FwRooflineData  *data,
                                                   gdouble                intensity);
/* A point in words, for tooltips: pattern, status and both positions. */
char                  *fw_roofline_point_describe (const FwRooflinePoint *point);

/* Both charts fill width × height from (0, 0) in cr's units. */
void                   fw_roofline_draw           (cairo_t               *cr,
                                                   gdouble                width,
                                                   gdouble                height,
                                                   const FwRooflineData  *data,
                                                   const FwChartOptions  *options);
void                   fw_summary_draw            (cairo_t               *cr,
                                                   gdouble                width,
                                                   gdouble                height,
                                                   const FwRooflineData  *data,
                                                   const FwChartOptions  *options);
/* The candidate whose marker (unfused or fused) is nearest to (x, y) within a few units on a roofline of
 * width × height, or G_MAXUINT. */
guint                  fw_roofline_hit            (const FwRooflineData  *data,
                                                   gdouble                width,
                                                   gdouble                height,
                                                   gdouble                x,
                                                   gdouble                y);
/* Where candidate's unfused (after FALSE) or fused marker is drawn; FALSE when it is not drawn. */
gboolean               fw_roofline_locate         (const FwRooflineData  *data,
                                                   gdouble                width,
                                                   gdouble                height,
                                                   guint                  candidate,
                                                   gboolean               after,
                                                   gdouble               *x,
                                                   gdouble               *y);

/* The charts of plan as files, SVG or PNG by path's extension (as fw_render_graph): anything else is
 * FW_ERROR_USAGE; the file is replaced atomically and a failure leaves what was there. */
gboolean               fw_render_roofline         (const FwPlan          *plan,
                                                   const char            *path,
                                                   GError               **error);
gboolean               fw_render_summary          (const FwPlan          *plan,
                                                   const char            *path,
                                                   GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwRooflineData, fw_roofline_data_free)

G_END_DECLS
