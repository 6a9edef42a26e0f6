/* fw-host-region.c: the parallel region over rows: the row prologue (lead indices, base offsets,
 * per-row loads), the sections and passes of a row with their loops, and the reductions' accumulators and
 * results between passes. */
#include "config.h"

#include <string.h>

#include "fw-host-codegen-private.h"
#include "ops/fw-op-registry.h"

/* Values of a group compute in float32 registers whatever their dtype; a half value is rounded only where
 * it leaves the group (fw_hc_append_store), or where the model casts to a half type. The reference rounds
 * after every op, so the two differ as a fused kernel may: the kernel is the closer to exact arithmetic
 * (docs/design.md §6.1, "Half precision"). A pass reads and writes unit-stride half rows through
 * float32 blocks of HALF_BLOCK elements, converted by the vectorised row converters. */
#define HALF_BLOCK 512

/* A half kernel's row sums (ReduceSum/Mean/L1/L2/SumSquare, LayerNorm's mean and variance, Softmax's
 * denominator) go into LANES double accumulators, element j into lane j % LANES, added pairwise after the
 * pass. One double accumulator is a chain of dependent adds the loop cannot vectorise, four cycles an
 * element; with lanes the adds are independent and run a vector wide. The order changes the double sum
 * by about n·2⁻⁵³ of its magnitude, far below the one rounding to half at the group's output. A float32
 * kernel keeps the reference's single chain: its output would show the difference in the last bit. */
#define LANES 8

/* Whether node sn's accumulator `which` ('a' the first pass's, 'd' the second's) in pass p is in lanes. */
static gboolean
lane_acc (Gen *g, SkNode *sn, gint p, char which)
{
  /* A Softmax's maximum in any type (lanes ignore a NaN as the chain does, so the maximum is the same), and
     a float32 one's denominator too: a sum of n values in (0, 1], so the order moves it by no more than
     n·2⁻⁵³ of itself, which its rounding to float32 keeps in no case but the rarest tie. As one chain each
     pass was scalar, exp and all (swin_t's twelve window Softmaxes took 8.8 of its 76 ms). */
  if (sn->kind == NK_SOFTMAX)
    return (which == 'd' && sn->pass + 1 == p) || (which == 'a' && sn->pass == p);
  if (sn->kind == NK_REDUCE)
    return which == 'a' && sn->pass == p && fw_op_fused_sum_in_lanes (sn->node, g->half);
  if (!g->half)
    return FALSE;
  if (sn->kind == NK_LAYERNORM)
    return (which == 'a' && sn->pass == p) || (which == 'd' && sn->pass + 1 == p);
  return FALSE;
}

/* The accumulator a statement of pass p adds into: the lane of element j, or the one accumulator. */
static const char *
acc (Gen *g, SkNode *sn, gint p, char which, char *buf, gsize len)
{
  if (lane_acc (g, sn, p, which))
    {
      g->pass_lanes = TRUE;
      g_snprintf (buf, len, "l%c%u[l]", which, sn->id);
    }
  else
    g_snprintf (buf, len, "%c%u", which, sn->id);
  return buf;
}

/* After pass p's loops: each lane accumulator's sum into its accumulator (decls: the declarations at the
 * pass's start instead). */
static void
emit_lanes (Gen *g, GString *s, gint p, gboolean decls)
{
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      for (const char *w = "ad"; *w; w++)
        {
          if (!lane_acc (g, sn, p, *w))
            continue;
          if (sn->kind == NK_SOFTMAX && *w == 'a')
            {
              if (decls)
                g_string_append_printf (s, "    float la%u[%d];\n    for (int l = 0; l < %d; l++)\n      la%u[l] = -INFINITY;\n",
                                        sn->id, LANES, LANES, sn->id);
              else
                g_string_append_printf (s, "    for (int l = 0; l < %d; l++)\n      a%u = la%u[l] > a%u ? la%u[l] : a%u;\n",
                                        LANES, sn->id, sn->id, sn->id, sn->id, sn->id);
              continue;
            }
          if (decls)
            g_string_append_printf (s, "    double l%c%u[%d] = { 0 };\n", *w, sn->id, LANES);
          else
            g_string_append_printf (s, "    %c%u = ((l%c%u[0] + l%c%u[1]) + (l%c%u[2] + l%c%u[3])) + ((l%c%u[4] + l%c%u[5]) + "
                                    "(l%c%u[6] + l%c%u[7]));\n", *w, sn->id, *w, sn->id, *w, sn->id, *w, sn->id, *w,
                                    sn->id, *w, sn->id, *w, sn->id, *w, sn->id, *w, sn->id);
        }
    }
}

/* Statements of one node at row scope (NK_ROWV). */
static gboolean
emit_rowv_node (Gen *g, GString *s, SkNode *sn, GError **error)
{
  g_autofree char *e = fw_hc_elementwise_expr (g, s, sn->node, -1, sn->out, error);

  if (e == NULL)
    return FALSE;
  g_string_append_printf (s, "    const %s v%u = %s;\n", fw_hc_reg_type (sn->out->dtype), sn->out->id, e);
  fw_hc_append_store (g, s, sn->out, "    ", TRUE);
  return TRUE;
}

static const char *
reduce_kind (const char *op)
{
  if (strcmp (op, "GlobalAveragePool") == 0)
    return "ReduceMean";
  if (strcmp (op, "GlobalMaxPool") == 0)
    return "ReduceMax";
  return op;
}

/* Accumulator declarations (row scope) for stages in pass p. */
static void
emit_acc_decls (Gen *g, GString *s, gint p)
{
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = reduce_kind (sn->node->op_type);
      if (sn->kind == NK_REDUCE && sn->pass == p)
        {
          if (strcmp (op, "ReduceMax") == 0)
            g_string_append_printf (s, "    float a%u = -INFINITY;\n", sn->id);
          else if (strcmp (op, "ReduceMin") == 0)
            g_string_append_printf (s, "    float a%u = INFINITY;\n", sn->id);
          else if (strcmp (op, "ReduceProd") == 0)
            g_string_append_printf (s, "    double a%u = 1.0;\n", sn->id);
          else
            g_string_append_printf (s, "    double a%u = 0.0;\n", sn->id);
        }
      if ((sn->kind == NK_SOFTMAX || sn->kind == NK_LAYERNORM) && sn->pass == p)
        g_string_append_printf (s, "    %s a%u = %s;\n", sn->kind == NK_SOFTMAX ? "float" : "double", sn->id,
                                sn->kind == NK_SOFTMAX ? "-INFINITY" : "0.0");
      if ((sn->kind == NK_SOFTMAX || sn->kind == NK_LAYERNORM) && sn->pass + 1 == p)
        g_string_append_printf (s, "    double d%u = 0.0;\n", sn->id);
    }
}

/* Statements after pass p: reduction results, at row scope. */
static void
emit_finals (Gen *g, GString *s, gint p)
{
  g_autofree char *n = fw_hc_flit ((float) g->row_len);

  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = reduce_kind (sn->node->op_type);
      guint o = sn->out ? sn->out->id : 0;

      if (sn->kind == NK_REDUCE && sn->pass == p)
        {
          if (strcmp (op, "ReduceMax") == 0 || strcmp (op, "ReduceMin") == 0)
            g_string_append_printf (s, "    const float v%u = a%u;\n", o, sn->id);
          else if (strcmp (op, "ReduceMean") == 0)
            g_string_append_printf (s, "    const float v%u = (float) (a%u / %" G_GINT64_FORMAT ".0);\n", o, sn->id,
                                    g->row_len);
          else if (strcmp (op, "ReduceL2") == 0)
            g_string_append_printf (s, "    const float v%u = (float) sqrt (a%u);\n", o, sn->id);
          else
            g_string_append_printf (s, "    const float v%u = (float) a%u;\n", o, sn->id);
          fw_hc_append_store (g, s, sn->out, "    ", TRUE);
        }
      if (sn->kind == NK_LAYERNORM && sn->pass == p)
        g_string_append_printf (s, "    const float m%u = (float) (a%u / %" G_GINT64_FORMAT ".0);\n", sn->id, sn->id,
                                g->row_len);
      if (sn->kind == NK_LAYERNORM && sn->pass + 1 == p)
        {
          g_autofree char *eps = fw_hc_flit (fw_node_get_attr_float (sn->node, "epsilon", 1e-5f));
          g_string_append_printf (s, "    const float r%u = 1.0f / sqrtf ((float) (d%u / %s) + %s);\n", sn->id, sn->id,
                                  n, eps);
        }
      if (sn->kind == NK_SOFTMAX && sn->pass == p)
        g_string_append_printf (s, "    const float m%u = a%u;\n", sn->id, sn->id);
      if (sn->kind == NK_SOFTMAX && sn->pass + 1 == p)
        g_string_append_printf (s, "    const float s%u = (float) d%u;\n", sn->id, sn->id);
    }
}

/* The loop body of pass p into s. */
static gboolean
emit_pass_body (Gen *g, GString *s, gint p, GError **error)
{
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      SkVal *x = fw_hc_input_val (g, node, 0);
      GString *xe = g_string_new (NULL);
      gboolean ok = TRUE;
      char ab[32];

      switch (sn->kind)
        {
        case NK_ROOT:
          if (sn->pass == p)
          {
            g_autoptr(GString) e = g_string_new (NULL);
            fw_hc_operand (g, s, g->tile, p, e);
            if (strcmp (node->op_type, "Gemm") == 0 && fw_hc_input_val (g, node, 2) != NULL)
              {
                double beta = fw_node_get_attr_float (node, "beta", 1.0f);
                g_autofree char *bl = fw_hc_flit ((float) beta);
                g_string_append (e, beta == 1.0 ? " + " : " + ");
                if (beta != 1.0)
                  g_string_append_printf (e, "%s * ", bl);
                fw_hc_operand (g, s, fw_hc_input_val (g, node, 2), p, e);
              }
            else if (strcmp (node->op_type, "Conv") == 0 && fw_hc_input_val (g, node, 2) != NULL)
              {
                g_string_append (e, " + ");
                fw_hc_operand (g, s, fw_hc_input_val (g, node, 2), p, e);
              }
            g_string_append_printf (s, "      const float v%u = %s;\n", sn->out->id, e->str);
            fw_hc_append_store (g, s, sn->out, "      ", FALSE);
          }
          break;
        case NK_ELEM:
          if (sn->pass == p)
            {
              g_autofree char *e = fw_hc_elementwise_expr (g, s, node, p, sn->out, error);
              if (e == NULL)
                ok = FALSE;
              else
                {
                  g_string_append_printf (s, "      const %s v%u = %s;\n", fw_hc_reg_type (sn->out->dtype), sn->out->id,
                                          e);
                  fw_hc_append_store (g, s, sn->out, "      ", FALSE);
                }
            }
          break;
        case NK_REDUCE:
          if (sn->pass == p)
            {
              const char *op = reduce_kind (node->op_type);
              fw_hc_operand (g, s, x, p, xe);
              /* The reference's rule: a NaN wins (x != x is NaN; the flags keep finite-math off). */
              char a[32];
              acc (g, sn, p, 'a', a, sizeof a);
              if (strcmp (op, "ReduceMax") == 0)
                g_string_append_printf (s, "      a%u = (%s > a%u || %s != %s) ? %s : a%u;\n", sn->id, xe->str, sn->id,
                                        xe->str, xe->str, xe->str, sn->id);
              else if (strcmp (op, "ReduceMin") == 0)
                g_string_append_printf (s, "      a%u = (%s < a%u || %s != %s) ? %s : a%u;\n", sn->id, xe->str, sn->id,
                                        xe->str, xe->str, xe->str, sn->id);
              else if (strcmp (op, "ReduceSumSquare") == 0 || strcmp (op, "ReduceL2") == 0)
                g_string_append_printf (s, "      %s += (double) %s * (double) %s;\n", a, xe->str, xe->str);
              else if (strcmp (op, "ReduceProd") == 0)
                g_string_append_printf (s, "      a%u *= (double) %s;\n", sn->id, xe->str);
              else if (strcmp (op, "ReduceL1") == 0)
                g_string_append_printf (s, "      %s += fabs ((double) %s);\n", a, xe->str);
              else
                g_string_append_printf (s, "      %s += (double) %s;\n", a, xe->str);
            }
          break;
        case NK_SOFTMAX:
        case NK_LAYERNORM:
          if (sn->pass == p || sn->pass + 1 == p || sn->last_pass == p)
            fw_hc_operand (g, s, x, p, xe);
          if (sn->kind == NK_SOFTMAX && sn->pass == p)
            {
              const char *a = acc (g, sn, p, 'a', ab, sizeof ab);
              g_string_append_printf (s, "      %s = %s > %s ? %s : %s;\n", a, xe->str, a, xe->str, a);
            }
          else if (sn->kind == NK_SOFTMAX && sn->pass + 1 == p)
            g_string_append_printf (s, "      %s += (double) fw_exp (%s - m%u);\n", acc (g, sn, p, 'd', ab, sizeof ab),
                                    xe->str, sn->id);
          else if (sn->kind == NK_SOFTMAX && sn->last_pass == p)
            {
              if (strcmp (node->op_type, "LogSoftmax") == 0)
                g_string_append_printf (s, "      const float v%u = %s - m%u - logf (s%u);\n", sn->out->id, xe->str,
                                        sn->id, sn->id);
              else
                g_string_append_printf (s, "      const float v%u = fw_exp (%s - m%u) / s%u;\n", sn->out->id, xe->str,
                                        sn->id, sn->id);
              fw_hc_append_store (g, s, sn->out, "      ", FALSE);
            }
          else if (sn->pass == p)
            g_string_append_printf (s, "      %s += (double) %s;\n", acc (g, sn, p, 'a', ab, sizeof ab), xe->str);
          else if (sn->pass + 1 == p)
            g_string_append_printf (s, "      %s += (double) (%s - m%u) * (double) (%s - m%u);\n",
                                    acc (g, sn, p, 'd', ab, sizeof ab), xe->str, sn->id, xe->str, sn->id);
          else if (sn->last_pass == p)
            {
              g_autoptr(GString) e = g_string_new (NULL);
              SkVal *scale = fw_hc_input_val (g, node, 1), *bias = fw_hc_input_val (g, node, 2);
              g_string_append_printf (e, "(%s - m%u) * r%u", xe->str, sn->id, sn->id);
              if (scale)
                {
                  g_string_append (e, " * ");
                  fw_hc_operand (g, s, scale, p, e);
                }
              if (bias)
                {
                  g_string_append (e, " + ");
                  fw_hc_operand (g, s, bias, p, e);
                }
              g_string_append_printf (s, "      const float v%u = %s;\n", sn->out->id, e->str);
              fw_hc_append_store (g, s, sn->out, "      ", FALSE);
            }
          break;
        case NK_ROWV:
        default:
          break;
        }
      g_string_free (xe, TRUE);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Row-scope loads of per-row inputs and base offsets of everything read or written. */
static void
emit_row_prologue (Gen *g, GString *s, const char *row, const char *tile_row)
{
  if (g->n_lead > 0)
    {
      g_string_append_printf (s, "    int64_t rem = %s;\n", row);
      for (gint k = g->n_lead - 1; k >= 0; k--)
        {
          if (k > 0)
            g_string_append_printf (s, "    const int64_t i%d = rem %% %" G_GINT64_FORMAT "; rem /= %" G_GINT64_FORMAT ";\n",
                                    k, g->lead[k], g->lead[k]);
          else
            g_string_append_printf (s, "    const int64_t i0 = rem;\n");
        }
      g_string_append (s, "    (void) rem;\n");
    }
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gboolean memory = v->kind == SV_EXTERNAL || v->kind == SV_IMM_ARRAY || v->kind == SV_TILE || v->out_index >= 0;
      if (!memory || !fw_hc_val_in_space (v))
        continue;
      g_string_append_printf (s, "    const int64_t b%u = %" G_GINT64_FORMAT, v->id, v->kind == SV_TILE ? 0 : v->offset);
      if (v->kind == SV_TILE)
        g_string_append_printf (s, " + (%s) * %" G_GINT64_FORMAT, tile_row, g->row_len);
      else
        for (gint k = 0; k < g->n_lead; k++)
          if (LEAD_STRIDE (v, k) != 0)
            g_string_append_printf (s, " + i%d * %" G_GINT64_FORMAT, k, LEAD_STRIDE (v, k));
      g_string_append (s, ";\n");
      v->row_loaded = FALSE;
      if (v->rowv && v->kind != SV_INTERNAL)
        {
          char base[32];
          v->row_loaded = TRUE;
          if (fw_hc_is_half (v->dtype) && v->kind != SV_IMM_ARRAY)
            g_string_append_printf (s, "    const float v%u = fw_%s2f (%s[b%u]);\n", v->id, fw_hc_half_letter (v->dtype),
                                    fw_hc_ptr_base (v, base, sizeof base), v->id);
          else
            g_string_append_printf (s, "    const %s v%u = %s[b%u];\n", fw_hc_reg_type (v->dtype), v->id,
                                    fw_hc_ptr_base (v, base, sizeof base), v->id);
        }
    }
}

/* for j in [lo, hi): body; with lane accumulators, LANES elements at a time, lane l = j's place among them. */
static void
append_j_loop (Gen *g, GString *s, const char *lo, const char *hi, const char *body)
{
  if (!g->pass_lanes)
    {
      g_string_append_printf (s, "      for (int64_t j = %s; j < %s; j++)\n      {\n%s      }\n", lo, hi, body);
      return;
    }
  g_string_append_printf (s, "      int64_t jl = %s;\n      for (; jl + %d <= %s; jl += %d)\n"
                             "        for (int l = 0; l < %d; l++)\n        {\n        const int64_t j = jl + l;\n%s        }\n",
                          lo, LANES, hi, LANES, LANES, body);
  g_string_append_printf (s, "      for (int64_t j = jl; j < %s; j++)\n      {\n      const int l = (int) (j - jl);\n%s      }\n",
                          hi, body);
}

/* The innermost loop of a pass around body; with half rows read or written unit-stride, strip-mined into
 * blocks: the inputs converted to float32 before, the outputs rounded after. */
static void
emit_pass_loop (Gen *g, GString *s, const char *body)
{
  g_autofree char *lo = g->n_chunks > 1 ? g_strdup ("j0") : g_strdup ("0");
  g_autofree char *hi = g->n_chunks > 1 ? g_strdup ("j1") : g_strdup_printf ("%" G_GINT64_FORMAT,
                                                                               g->inner[g->n_inner - 1]);
  gboolean blocks = FALSE;

  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      blocks |= v->half_in || v->half_out;
    }
  if (!blocks)
    {
      append_j_loop (g, s, lo, hi, body);
      return;
    }
  g_string_append_printf (s, "      for (int64_t jb = %s; jb < %s; jb += %d)\n      {\n", lo, hi, HALF_BLOCK);
  g_string_append_printf (s, "      const int64_t jn = %s - jb < %d ? %s - jb : %d;\n", hi, HALF_BLOCK, hi, HALF_BLOCK);
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->half_in)
        g_string_append_printf (s, "      float H%u[%d];\n      fw_%s2f_row (cpu, P%u + jb, H%u, jn);\n", v->id,
                                HALF_BLOCK, fw_hc_half_letter (v->dtype), v->id, v->id);
      if (v->half_out)
        g_string_append_printf (s, "      float O%u[%d];\n", v->id, HALF_BLOCK);
    }
  append_j_loop (g, s, "jb", "jb + jn", body);
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->half_out)
        g_string_append_printf (s, "      fw_f2%s_row (cpu, O%u, P%u + jb, jn);\n", fw_hc_half_letter (v->dtype), v->id,
                                v->id);
    }
  g_string_append (s, "      }\n");
}

/* The row body: sections and passes. */
static gboolean
emit_row (Gen *g, GString *s, GError **error)
{
  for (gint p = 0; p <= g->n_passes; p++)
    {
      for (guint i = 0; i < g->nodes->len; i++)
        {
          SkNode *sn = &g_array_index (g->nodes, SkNode, i);
          if (sn->kind == NK_ROWV && sn->pass == p && !emit_rowv_node (g, s, sn, error))
            return FALSE;
        }
      if (p == g->n_passes)
        break;
      emit_acc_decls (g, s, p);
      emit_lanes (g, s, p, TRUE);
      {
        g_autoptr(GString) body = g_string_new (NULL);
        gint last = g->n_inner - 1;

        for (guint i = 0; i < g->vals->len; i++)
          {
            SkVal *v = g_ptr_array_index (g->vals, i);
            v->need_ptr = v->need_scr = v->half_in = v->half_out = FALSE;
          }
        g->pass_lanes = FALSE;
        if (!emit_pass_body (g, body, p, error))
          return FALSE;
        g_string_append (s, "    {\n");
        for (gint k = 0; k < last; k++)
          g_string_append_printf (s, "    for (int64_t k%d = 0; k%d < %" G_GINT64_FORMAT "; k%d++)\n", k, k,
                                  g->inner[k], k);
        g_string_append (s, "    {\n      const int64_t q = 0");
        for (gint k = 0; k < last; k++)
          {
            gint64 n = 1;
            for (gint m = k + 1; m < g->n_inner; m++)
              n *= g->inner[m];
            g_string_append_printf (s, " + k%d * %" G_GINT64_FORMAT, k, n);
          }
        g_string_append (s, ";\n      (void) q;\n");
        for (guint i = 0; i < g->vals->len; i++)
          {
            SkVal *v = g_ptr_array_index (g->vals, i);
            char base[32];
            if (v->need_ptr)
              {
                gboolean w = v->kind == SV_INTERNAL;
                /* In place the tile and the output are one buffer: no restrict on either. */
                gboolean shared = g->in_place && (v->kind == SV_TILE || v->out_index >= 0);
                g_string_append_printf (s, "      %s%s *%sP%u = %s + b%u", w ? "" : "const ",
                                        v->kind == SV_IMM_ARRAY ? fw_hc_reg_type (v->dtype) : fw_hc_mem_type (v->dtype),
                                        shared ? "" : "restrict ", v->id, fw_hc_ptr_base (v, base, sizeof base), v->id);
                for (gint k = 0; k < last; k++)
                  if (INNER_STRIDE (v, k) != 0)
                    g_string_append_printf (s, " + k%d * %" G_GINT64_FORMAT, k, INNER_STRIDE (v, k));
                g_string_append (s, ";\n");
              }
            if (v->need_scr)
              g_string_append_printf (s, "      %s *restrict S%u = (%s *) scr + %" G_GINT64_FORMAT " + q;\n",
                                      fw_hc_reg_type (v->dtype), v->id, fw_hc_reg_type (v->dtype),
                                      (gint64) v->scratch_slot * g->row_len);
          }
        emit_pass_loop (g, s, body->str);
        g_string_append (s, "    }\n    }\n");
      }
      emit_lanes (g, s, p, FALSE);
      emit_finals (g, s, p);
    }
  return TRUE;
}

/* The row loop's first lines: the row r (and the chunk's columns) of iteration t. */
static void
emit_row_index (Gen *g, GString *s, const char *row_expr)
{
  if (g->n_chunks > 1)
    g_string_append_printf (s, "    const int64_t r = t / %" G_GINT64_FORMAT ", c = t %% %" G_GINT64_FORMAT ";\n"
                               "    const int64_t j0 = c * %" G_GINT64_FORMAT ";\n"
                               "    const int64_t j1 = j0 + %" G_GINT64_FORMAT " < %" G_GINT64_FORMAT " ? j0 + %"
                               G_GINT64_FORMAT " : %" G_GINT64_FORMAT ";\n",
                            g->n_chunks, g->n_chunks, g->chunk, g->chunk, g->row_len, g->chunk, g->row_len);
  else
    g_string_append_printf (s, "    const int64_t r = %s;\n", row_expr);
  g_string_append (s, "    (void) r;\n");
}

/* Iteration t of the row loop: its row, row_pre, the row prologue and the row's passes. */
static gboolean
emit_row_body (Gen *g, GString *s, const char *row_expr, const char *row_pre, GError **error)
{
  emit_row_index (g, s, row_expr);
  if (row_pre != NULL)
    g_string_append (s, row_pre);
  emit_row_prologue (g, s, "r", "t");
  return emit_row (g, s, error);
}

/* A scope sub-kernel's region in team form (FwSuperKernel.team): the caller's team shares the rows, and the
 * row scratch is the per-thread buffer the program passes after the outputs. A region one thread should run
 * gives all its rows to the team's first thread, the others wait at the loop's barrier. */
static gboolean
emit_team_region (Gen *g, const char *count, const char *row_expr, const char *row_pre, gboolean wide,
                  GError **error)
{
  GString *s = g->body;

  g->kernel->team_wide |= wide;
  g->kernel->team_scratch_bytes = MAX (g->kernel->team_scratch_bytes, (gint64) g->n_scratch * g->row_len * 8);
  if (g->n_scratch > 0)
    g_string_append_printf (s, "  {\n    double *scr = (double *) outs[%u];\n", g->kernel->outputs->len);
  else
    g_string_append (s, "  {\n    double *scr = NULL;\n");
  g_string_append (s, "    (void) scr;\n");
  if (wide)
    g_string_append (s, "#pragma omp for schedule(static)\n");
  else
    {
      gint64 n = g_ascii_strtoll (count, NULL, 10);

      g_string_append_printf (s, "#pragma omp for schedule(static, %" G_GINT64_FORMAT ")\n", MAX (n, 1));
    }
  g_string_append_printf (s, "  for (int64_t t = 0; t < %s; t++)\n  {\n", count);
  if (!emit_row_body (g, s, row_expr, row_pre, error))
    return FALSE;
  g_string_append (s, "  }\n  }\n");
  return TRUE;
}

/* One parallel region over rows [0, count): `row_expr` names the row in the space (the tile's row is t).
 * row_pre, when not NULL, is code that fills the tile's row t first (a direct convolution), so the epilogue
 * reads it from cache. */
gboolean
fw_hc_emit_region (Gen *g, const char *count, const char *row_expr, const char *row_pre, GError **error)
{
  GString *s = g->body;
  gint64 elements = g->n_rows * g->row_len, ops = 0;
  gboolean wide;

  fw_hc_widen_row_invariant (g);
  /* Right after sgemm, OpenBLAS's threads still spin on the cores waiting for more work, and an OpenMP
     team started then shares a core with them: ViT's MLP GELU epilogue took 10 ms on two threads against
     well under 1 ms on one. So an epilogue that is cheap beside its product (a few operations per element
     against 2K flops) runs on the calling thread; a heavy one (Softmax, LayerNorm, transcendentals after a
     short product) still takes the team. A oneDNN product ran on the OpenMP team itself, with no other
     threads left spinning: there an epilogue with a transcendental (erf-GELU after ViT's MLP) takes the
     team whatever the product's size; a cheap one (Relu, a residual Add) stays on one thread, where a
     region on the loaded machine can wait a scheduler slice for its second thread. */
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = sn->node->op_type;
      if (sn->kind == NK_ROOT)
        continue;
      ops += sn->kind != NK_ELEM || strcmp (op, "Erf") == 0 || strcmp (op, "Exp") == 0 || strcmp (op, "Tanh") == 0 ||
             strcmp (op, "Sigmoid") == 0 || strcmp (op, "Log") == 0 || strcmp (op, "Gelu") == 0 ? 8 : 1;
    }
  /* A heavy pass (a reduction's, a transcendental's) pays for the team from a quarter of the elements:
     swin_t's Softmaxes over 57,624 elements ran on one thread. */
  wide = elements > (ops >= 8 ? PARALLEL_MIN_ELEMENTS / 4 : PARALLEL_MIN_ELEMENTS) &&
         ((g->kernel->producer_kind == FW_SK_PRODUCER_ONEDNN && ops >= 8) || 2 * g->gemm_k < 32 * ops);
  if (g->team)
    return emit_team_region (g, count, row_expr, row_pre, wide, error);
  g_string_append_printf (s, "  {\n    int fail = 0;\n#pragma omp parallel num_threads(%s)\n  {\n",
                          wide ? "nt" : "1");
  /* Scratch holds float or narrower values only, 8 bytes a slot keeps any register type aligned. */
  if (g->n_scratch > 0)
    g_string_append_printf (s, "    double *scr = (double *) malloc (sizeof (double) * %" G_GINT64_FORMAT ");\n",
                            (gint64) g->n_scratch * g->row_len);
  else
    g_string_append (s, "    double *scr = NULL;\n");
  g_string_append_printf (s, "#pragma omp for schedule(static)\n  for (int64_t t = 0; t < %s; t++)\n  {\n", count);
  if (g->n_scratch > 0)
    g_string_append (s, "    if (scr == NULL) continue;\n");
  if (!emit_row_body (g, s, row_expr, row_pre, error))
    return FALSE;
  g_string_append (s, "  }\n");
  if (g->n_scratch > 0)
    g_string_append (s, "    if (scr == NULL)\n    {\n#pragma omp atomic write\n      fail = 1;\n    }\n");
  g_string_append (s, "    free (scr);\n  }\n    if (fail)\n      goto out;\n  }\n");
  return TRUE;
}
