/* fw-ascend-cube.c: a MatMul/Gemm group as one mixed cube + vector kernel, the "mix vector-cube" form of
 * CANN's MatmulLeakyReluCustom sample and of tests/twin/matmul_tiled.cpp: the Matmul object is registered
 * with the pipe, each core takes its share of C (TCubeTiling's singleCoreM x singleCoreN, M shares first),
 * Iterate + GetTensorC bring C into the Unified Buffer block by block (baseM x baseN, in the tiling's
 * iterateOrder: M first, or N first where A's rows stay in L1 across a row of blocks), the epilogue
 * runs on the block there and CopyOut writes it: the root's result never goes to HBM.
 *
 * What is decided here: whether the group can be mixed (else why not, and the group stays an epilogue after
 * CANN's own operator), the product's shape (batched MatMul walks its batch, a 2-D B folds A's batch into M;
 * Gemm's transB, alpha and a bias C; an Add of a bias row right after the product becomes SetBias), the cube
 * tiling from the UB the epilogue leaves a C block, and the HBM bytes the kernel moves as the twin counts
 * them (the plan prices those). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-ascend-codegen-private.h"

static gint64
dims_product (const FwValue *v, gint from, gint to)
{
  gint64 p = 1;

  for (gint d = from; d < to; d++)
    p *= v->dims[d].value;
  return p;
}

static gboolean
static_shape (const FwValue *v)
{
  for (gint d = 0; d < v->rank; d++)
    if (v->dims[d].value <= 0)
      return FALSE;
  return TRUE;
}

/* A batch operand of a batched MatMul: its batch dims, right-aligned against C's and leading 1s aside, are
 * C's trailing batch dims, so product b of C reads its product b % batch (1: the same one every time). */
static gboolean
batch_of (const FwValue *v, const FwValue *c, gint64 *batch)
{
  gint vb = v->rank - 2, cb = c->rank - 2, first = 0;

  while (first < vb && v->dims[first].value == 1)
    first++;
  for (gint d = first; d < vb; d++)
    if (cb - (vb - d) < 0 || v->dims[d].value != c->dims[cb - (vb - d)].value)
      return FALSE;
  *batch = dims_product (v, first, vb);
  return TRUE;
}

/* An Add right after the product whose other operand is one row of C's width: SetBias does it in the cube
 * (where the sum leaves the group, the block is copied into the output's queue). */
static FwNode *
bias_add (Gen *g, FwValue *product, gint64 n)
{
  FwNode *found = NULL;
  guint uses = 0;

  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (g->spec); i++)
    {
      FwNode *node = fw_kernel_spec_get_node (g->spec, i);
      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] == product)
          {
            uses++;
            if (strcmp (node->op_type, "Add") == 0 && node->n_inputs == 2 && node->inputs[0] != node->inputs[1])
              found = node;
          }
    }
  if (found == NULL || uses != 1 || fw_kernel_spec_is_output (g->spec, product) || found->n_outputs < 1 ||
      found->outputs[0] == NULL)
    return NULL;
  {
    FwValue *x = found->inputs[found->inputs[0] == product ? 1 : 0];
    const FwSpecValue *sv = fw_kernel_spec_lookup (g->spec, x);

    if (x == NULL || sv == NULL || sv->kind != FW_SPEC_INPUT || x->dtype != product->dtype || n <= 1 ||
        x->rank < 1 || x->dims[x->rank - 1].value != n || fw_value_get_n_elements (x) != n)
      return NULL;
    g->cube_bias = x;
  }
  return found;
}

static void
refuse (Gen *g, char *why)
{
  g->cube = FALSE;
  g_free (g->not_cube);
  g->not_cube = why;
}

void
fw_ac_cube_decide (Gen *g)
{
  FwNode *root = fw_kernel_spec_get_root (g->spec);
  FwValue *a, *b, *c;
  gboolean gemm;
  gint64 m, n, k;

  g->cube = FALSE;
  g->alpha = 1.0;
  g->batch = g->a_batch = g->b_batch = 1;
  if (root == NULL || !g->allow_cube)
    return;
  gemm = strcmp (root->op_type, "Gemm") == 0;
  if (!gemm && strcmp (root->op_type, "MatMul") != 0)
    {
      refuse (g, g_strdup_printf (_("%s runs as CANN's own cube operator; the kernel is its epilogue"), root->op_type));
      return;
    }
  a = root->n_inputs > 0 ? root->inputs[0] : NULL;
  b = root->n_inputs > 1 ? root->inputs[1] : NULL;
  c = root->n_outputs > 0 ? root->outputs[0] : NULL;
  if (a == NULL || b == NULL || c == NULL || a->rank < 2 || b->rank < 2 || c->rank < 2 || !static_shape (a) ||
      !static_shape (b) || !static_shape (c))
    {
      refuse (g, g_strdup_printf (_("the %s operands are not matrices of static shape"), root->op_type));
      return;
    }
  if (a->dtype != b->dtype || a->dtype != c->dtype || (a->dtype != FW_DTYPE_FLOAT && a->dtype != FW_DTYPE_FLOAT16))
    {
      refuse (g, g_strdup_printf (_("the %s operands are not all float32 or all float16"), root->op_type));
      return;
    }
  if (gemm)
    {
      FwValue *bias = root->n_inputs > 2 ? root->inputs[2] : NULL;
      gdouble alpha = fw_node_get_attr_float (root, "alpha", 1.0f), beta = fw_node_get_attr_float (root, "beta", 1.0f);

      if (fw_node_get_attr_int (root, "transA", 0) != 0 || a->rank != 2 || b->rank != 2)
        {
          refuse (g, g_strdup (_("Gemm with transA: the Matmul API form used takes A as it is")));
          return;
        }
      g->trans_b = fw_node_get_attr_int (root, "transB", 0) != 0;
      m = a->dims[0].value;
      k = a->dims[1].value;
      n = b->dims[g->trans_b ? 0 : 1].value;
      if (bias != NULL && (alpha != 1.0 || beta != 1.0 || bias->dtype != c->dtype || fw_value_get_n_elements (bias) != n ||
                           bias->dims[bias->rank - 1].value != n))
        {
          refuse (g, g_strdup (_("Gemm's C is not one bias row added with alpha and beta 1")));
          return;
        }
      g->cube_bias = bias;
      g->alpha = alpha;
    }
  else
    {
      m = a->dims[a->rank - 2].value;
      k = a->dims[a->rank - 1].value;
      n = b->dims[b->rank - 1].value;
      if (b->rank == 2)
        m = dims_product (a, 0, a->rank - 1);  /* A's batch folds into M: C's rows are A's rows */
      else if (!batch_of (a, c, &g->a_batch) || !batch_of (b, c, &g->b_batch))
        {
          refuse (g, g_strdup (_("the MatMul batch broadcasts in a way the kernel does not walk")));
          return;
        }
      else
        g->batch = dims_product (c, 0, c->rank - 2);
      g->cube_bias = NULL;
      g->bias_add = bias_add (g, c, n);
    }
  if (g->batch * m * n != fw_space_elements (&g->space) || g->space.dims[g->space.rank - 1] != n)
    {
      refuse (g, g_strdup (_("the epilogue's iteration space is not the product's")));
      return;
    }
  g->cube_a = a;
  g->cube_b = b;
  g->cube_shape = (FwCubeShape) { m, n, k, fw_dtype_bits (a->dtype) / 8, fw_dtype_bits (b->dtype) / 8,
                                  g->cube_bias ? fw_dtype_bits (c->dtype) / 8 : 0, FALSE };
  g->cube = TRUE;
}

/* The epilogue's operands as the mixed kernel reads them: every streamed input and every output is a whole
 * C-shaped tensor (read and written per block); per-row values in GM are not. */
gboolean
fw_ac_cube_check_operands (Gen *g)
{
  for (guint i = 0; i < g->inputs->len; i++)
    if (((Operand *) g_ptr_array_index (g->inputs, i))->role != FW_SHAPE_FULL)
      {
        refuse (g, g_strdup (_("an epilogue input holds one value per row of C")));
        return FALSE;
      }
  for (guint i = 0; i < g->outputs->len; i++)
    if (((Operand *) g_ptr_array_index (g->outputs, i))->role != FW_SHAPE_FULL)
      {
        refuse (g, g_strdup (_("an epilogue output holds one value per row of C")));
        return FALSE;
      }
  return TRUE;
}

/* Whether the epilogue works on whole rows of C: a row operation, a resident row vector or a value per row
 * (broadcast rows the bias needed are gone once SetBias does it). */
static gboolean
needs_whole_rows (Gen *g)
{
  if (fw_kernel_spec_get_reduce_axes (g->spec) > 0)
    return TRUE;
  for (guint i = 0; i < g->all->len; i++)
    {
      const Operand *o = g_ptr_array_index (g->all, i);
      if (o->rowvec || (o->role == FW_SHAPE_ROW && o->kind != KIND_IMMEDIATE))
        return TRUE;
    }
  return FALSE;
}

/* The cube tiling, given the UB the epilogue's buffers leave: tile-shaped buffers take per_elem bytes per
 * element of the C block, the others a fixed amount (row buffers at the largest baseM, 256 rows). */
gboolean
fw_ac_cube_tile (Gen *g)
{
  g_autoptr(GError) error = NULL;
  gdouble per_elem = 0, fixed = 0, budget = fw_profile_budget_bytes (g->profile);

  g->cube_shape.whole_n = g->rows_mode && needs_whole_rows (g);
  if (g->cube_shape.whole_n && (g->space.row_axes != 1 || g->row_len != g->cube_shape.n))
    {
      refuse (g, g_strdup (_("the epilogue's rows are not rows of C")));
      return FALSE;
    }

  for (guint i = 0; i < g->kernel_buffers->len; i++)
    {
      const KernelBuffer *b = &g_array_index (g->kernel_buffers, KernelBuffer, i);

      if (b->role == FW_SHAPE_FULL)
        per_elem += (gdouble) b->eb * b->copies;
      else if (b->role == FW_SHAPE_ROW)
        fixed += (gdouble) ((256 * b->eb + 31) / 32 * 32) * b->copies;
      else
        fixed += (gdouble) ((b->elements + 31) / 32 * 32) * b->copies;
    }
  if (budget - fixed < 256 * per_elem ||
      !fw_ascend_cube_tiling (&g->cube_shape, g->profile, (guint) per_elem, (guint64) (budget - fixed), &g->cube_tiling,
                              &error))
    {
      refuse (g, error ? g_strdup (error->message)
                       : g_strdup (_("the epilogue's buffers leave no room in the Unified Buffer for a block of C")));
      return FALSE;
    }
  if (g->rows_mode)
    g->row_stride = g->cube_tiling.base_n;
  if (fw_ac_kernel_bytes (g, (gint64) g->cube_tiling.base_m * g->cube_tiling.base_n, g->cube_tiling.base_m) > budget)
    {
      refuse (g, g_strdup (_("the epilogue's buffers leave no room in the Unified Buffer for a block of C")));
      return FALSE;
    }
  return TRUE;
}

/* The tiling struct's fields after the seven of every kernel, in order (the kernel copies them into its
 * TCubeTiling and its batch walk). */
const char *const fw_ac_cube_fields[FW_AC_N_CUBE_FIELDS] = {
  "usedCoreNum", "M", "N", "Ka", "Kb", "singleCoreM", "singleCoreN", "singleCoreK", "baseM", "baseN", "baseK",
  "depthA1", "depthB1", "stepM", "stepN", "stepKa", "stepKb", "isBias", "iterateOrder", "dbL0A", "dbL0B", "dbL0C",
};
#define cube_fields fw_ac_cube_fields

const char fw_ac_cube_share_code[] =
  "    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &this->cube);\n"
  "    uint32_t idx = static_cast<uint32_t>(AscendC::GetBlockIdx());\n"
  "    uint32_t m = static_cast<uint32_t>(this->cube.M), n = static_cast<uint32_t>(this->cube.N);\n"
  "    uint32_t scm = static_cast<uint32_t>(this->cube.singleCoreM), scn = static_cast<uint32_t>(this->cube.singleCoreN);\n"
  "    uint32_t mShares = (m + scm - 1) / scm;\n"
  "    this->m0 = (idx % mShares) * scm;\n"
  "    this->n0 = (idx / mShares) * scn;\n"
  "    this->sm = m - this->m0 < scm ? m - this->m0 : scm;\n"
  "    this->sn = n - this->n0 < scn ? n - this->n0 : scn;\n";

static guint
cube_values (Gen *g, guint64 *v)
{
  const FwCubeTiling *t = &g->cube_tiling;
  const gint f[] = { t->used_core_num, t->m, t->n, t->ka, t->kb, t->single_core_m, t->single_core_n, t->single_core_k,
                     t->base_m, t->base_n, t->base_k, t->depth_a1, t->depth_b1, t->step_m, t->step_n, t->step_ka,
                     t->step_kb, t->is_bias, t->iterate_order, t->db_l0a, t->db_l0b, t->db_l0c };
  guint n = 0;

  G_STATIC_ASSERT (G_N_ELEMENTS (f) == G_N_ELEMENTS (cube_fields));
  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    v[n++] = (guint64) f[i];
  v[n++] = (guint64) g->batch;
  v[n++] = (guint64) g->a_batch;
  v[n++] = (guint64) g->b_batch;
  return n;
}

/* Blocks of C one core walks per product (its share in baseM x baseN blocks). */
static gint64
core_blocks (const FwCubeTiling *t, gint core)
{
  gint64 m_shares = (t->m + t->single_core_m - 1) / t->single_core_m;
  gint64 m0 = (core % m_shares) * t->single_core_m, n0 = (core / m_shares) * t->single_core_n;
  gint64 sm = MIN ((gint64) t->single_core_m, t->m - m0), sn = MIN ((gint64) t->single_core_n, t->n - n0);

  return ((sm + t->base_m - 1) / t->base_m) * ((sn + t->base_n - 1) / t->base_n);
}

void
fw_ac_cube_compute_tiling (Gen *g, FwAscendTiling *out)
{
  const FwCubeTiling *t = &g->cube_tiling;
  gint64 blocks = 0, most = 0;

  memset (out, 0, sizeof *out);
  for (gint core = 0; core < t->used_core_num; core++)
    {
      blocks += core_blocks (t, core);
      most = MAX (most, core_blocks (t, core));
    }
  out->ub_bytes = fw_kernel_spec_get_resource (g->spec)->ub_bytes;
  out->total_length = g->total;
  out->tile_length = (gint64) t->base_m * t->base_n;
  out->rows = g->rows_mode ? t->base_m : 0;
  out->row_length = g->rows_mode ? t->base_n : 0;  /* a tile row is a row of the C block */
  out->tile_num = blocks * g->batch;
  out->block_num = t->used_core_num;
  out->tiles_per_block = most * g->batch;
  out->kernel_ub_bytes = fw_ac_kernel_bytes (g, out->tile_length, t->base_m);
  out->n_cube = cube_values (g, out->cube);
}

void
fw_ac_cube_traffic (Gen *g, gdouble *read, gdouble *written)
{
  *read = (gdouble) g->batch * fw_ascend_cube_traffic (&g->cube_tiling, &g->cube_shape);
  *written = 0;
  for (guint i = 0; i < g->inputs->len; i++)
    {
      const Operand *o = g_ptr_array_index (g->inputs, i);
      *read += (gdouble) o->elements * o->eb;
    }
  /* Broadcast operands are loaded whole by every core. */
  for (guint i = 0; i < g->smalls->len; i++)
    {
      const Operand *o = g_ptr_array_index (g->smalls, i);
      *read += (gdouble) o->elements * o->eb * g->cube_tiling.used_core_num;
    }
  for (guint i = 0; i < g->outputs->len; i++)
    {
      const Operand *o = g_ptr_array_index (g->outputs, i);
      *written += (gdouble) o->elements * o->eb;
    }
}

static const char *
cube_ctype (const FwValue *v)
{
  return v->dtype == FW_DTYPE_FLOAT16 ? "half" : "float";
}

/* The Matmul API, the row pitch of C in GM and the block copies (rows runs of len elements, gmPitch apart
 * in GM and ubPitch apart in UB, as GetTensorC lays a block out). */
void
fw_ac_cube_prelude (Gen *g, GString *s)
{
  g_string_append_printf (s,
    "constexpr uint64_t C_PITCH = %" G_GINT64_FORMAT "u;  /* elements from one row of C to the next in GM */\n"
    "constexpr bool TRANS_B = %s;\n\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyBlockIn(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src,\n"
    "                                   uint32_t rows, uint32_t len, uint32_t ubPitch, uint64_t gmPitch)\n{\n"
    "  AscendC::DataCopyExtParams params(static_cast<uint16_t>(rows), static_cast<uint32_t>(len * sizeof(T)),\n"
    "                                    static_cast<uint32_t>((gmPitch - len) * sizeof(T)), GapBlocks<T>(len, ubPitch), 0);\n"
    "  AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, T());\n"
    "  AscendC::DataCopyPad(dst, src, params, pad);\n}\n\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyBlockOut(const AscendC::GlobalTensor<T> &dst, const AscendC::LocalTensor<T> &src,\n"
    "                                    uint32_t rows, uint32_t len, uint32_t ubPitch, uint64_t gmPitch)\n{\n"
    "  AscendC::DataCopyExtParams params(static_cast<uint16_t>(rows), static_cast<uint32_t>(len * sizeof(T)),\n"
    "                                    GapBlocks<T>(len, ubPitch), static_cast<uint32_t>((gmPitch - len) * sizeof(T)), 0);\n"
    "  AscendC::DataCopyPad(dst, src, params);\n}\n\n",
    g->cube_shape.n, g->trans_b ? "true" : "false");
}

/* Init's first part: the cube tiling from the struct, the Matmul object registered with the pipe, this
 * core's share of C, the epilogue's GM tensors whole (blocks are addressed by their offset in C). */
void
fw_ac_cube_init (Gen *g, GString *s)
{
  g_string_append (s, "    this->tileLength = static_cast<uint32_t>(tiling.tileLength);\n"
                      "    this->tileRows = static_cast<uint32_t>(tiling.rows);\n");
  for (guint i = 0; i < G_N_ELEMENTS (cube_fields); i++)
    g_string_append_printf (s, "    this->cube.%s = static_cast<int>(tiling.cube%s);\n", cube_fields[i], cube_fields[i]);
  g_string_append (s,
    "    this->batch = tiling.batch;\n"
    "    this->aBatch = tiling.aBatch;\n"
    "    this->bBatch = tiling.bBatch;\n");
  g_string_append (s, fw_ac_cube_share_code);
  g_string_append_printf (s,
    "    this->aBase = reinterpret_cast<__gm__ %s *>(cubeA);\n"
    "    this->bBase = reinterpret_cast<__gm__ %s *>(cubeB);\n",
    cube_ctype (g->cube_a), cube_ctype (g->cube_b));
  if (g->cube_bias != NULL)
    g_string_append_printf (s, "    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(cubeBias) + this->n0, this->sn);\n",
                            cube_ctype (g->cube_bias));
  for (guint i = 0; i < g->inputs->len; i++)
    g_string_append_printf (s, "    in%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(in%u), tiling.totalLength);\n", i,
                            ((Operand *) g_ptr_array_index (g->inputs, i))->ctype, i);
  for (guint i = 0; i < g->outputs->len; i++)
    g_string_append_printf (s, "    out%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(out%u), tiling.totalLength);\n", i,
                            ((Operand *) g_ptr_array_index (g->outputs, i))->ctype, i);
}

/* Process's loop: for each product of the batch, the core's A rows and B columns to the Matmul object, then
 * one tile per block of C that Iterate computes (t: the block's first element in C). */
void
fw_ac_cube_process_loop (Gen *g, GString *s)
{
  g_string_append_printf (s,
    "    uint64_t aStride = static_cast<uint64_t>(this->cube.M) * this->cube.Ka;\n"
    "    uint64_t bStride = static_cast<uint64_t>(this->cube.Kb) * this->cube.N;\n"
    "    uint64_t bOffset = TRANS_B ? static_cast<uint64_t>(this->n0) * this->cube.Kb : this->n0;\n"
    "    uint32_t baseM = static_cast<uint32_t>(this->cube.baseM), baseN = static_cast<uint32_t>(this->cube.baseN);\n"
    "    uint32_t mBlocks = (this->sm + baseM - 1) / baseM, nBlocks = (this->sn + baseN - 1) / baseN;\n"
    "    bool nFirst = this->cube.iterateOrder == 1;  /* GetTensorC's order: M first (0) or N first (1) */\n"
    "    for (uint64_t b = 0; b < this->batch; b++) {\n"
    "      aGm.SetGlobalBuffer(this->aBase + (b %% this->aBatch) * aStride + static_cast<uint64_t>(this->m0) * this->cube.Ka,\n"
    "                          static_cast<uint64_t>(this->sm) * this->cube.Ka);\n"
    "      bGm.SetGlobalBuffer(this->bBase + (b %% this->bBatch) * bStride + bOffset, bStride - bOffset);\n"
    "      mm.SetTensorA(aGm);\n"
    "      mm.SetTensorB(bGm, TRANS_B);\n"
    "%s"
    "      mm.SetTail(static_cast<int>(this->sm), static_cast<int>(this->sn));\n"
    "      for (uint32_t count = 0; mm.Iterate(); count++) {\n"
    "        uint32_t bi = nFirst ? count / nBlocks : count %% mBlocks, bj = nFirst ? count %% nBlocks : count / mBlocks;\n"
    "        uint32_t rowLeft = this->sm - bi * baseM, colLeft = this->sn - bj * baseN;\n"
    "        uint32_t rows = rowLeft < baseM ? rowLeft : baseM;\n"
    "        uint32_t len = colLeft < baseN ? colLeft : baseN;\n"
    "        uint32_t stride = baseN;  /* GetTensorC's row pitch */\n"
    "        uint64_t t = (b * static_cast<uint64_t>(this->cube.M) + this->m0 + bi * baseM) * C_PITCH + this->n0 + bj * baseN;\n"
    "        CopyIn(t, rows, len, stride);\n"
    "        Compute(t, rows, len, stride);\n"
    "        CopyOut(t, rows, len, stride);\n"
    "      }\n"
    "    }\n"
    "    mm.End();\n"
    "  }\n\nprivate:\n",
    g->cube_bias != NULL ? "      mm.SetBias(biasGm);\n" : "");
}

void
fw_ac_cube_members (Gen *g, GString *s)
{
  const char *ct = g->cube_result->ctype;

  g_string_append_printf (s,
    "  matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, %s>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, %s, TRANS_B>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, %s>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, %s>> mm;\n"
    "  TCubeTiling cube;\n"
    "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> cubeQueue;  /* one block of C from GetTensorC */\n"
    "  AscendC::GlobalTensor<%s> aGm;\n"
    "  AscendC::GlobalTensor<%s> bGm;\n"
    "  AscendC::GlobalTensor<%s> biasGm;\n"
    "  __gm__ %s *aBase = nullptr;\n"
    "  __gm__ %s *bBase = nullptr;\n"
    "  uint64_t batch = 1, aBatch = 1, bBatch = 1;\n"
    "  uint32_t m0 = 0, n0 = 0, sm = 0, sn = 0;  /* this core's share of C */\n",
    cube_ctype (g->cube_a), cube_ctype (g->cube_b), ct, ct, cube_ctype (g->cube_a), cube_ctype (g->cube_b), ct,
    cube_ctype (g->cube_a), cube_ctype (g->cube_b));
}

void
fw_ac_cube_entry_fields (Gen *g, GString *s)
{
  (void) g;
  for (guint i = 0; i < G_N_ELEMENTS (cube_fields); i++)
    g_string_append_printf (s, "  t.cube%s = src->cube%s;\n", cube_fields[i], cube_fields[i]);
  g_string_append (s, "  t.batch = src->batch;\n  t.aBatch = src->aBatch;\n  t.bBatch = src->bBatch;\n");
}

void
fw_ac_cube_struct_fields (Gen *g, GString *s)
{
  guint64 v[40];
  guint n = cube_values (g, v);

  g_string_append (s, "  /* The cube tiling (TCubeTiling, computed for the profile by fw_ascend_cube_tiling) and the batch */\n");
  for (guint i = 0; i < n; i++)
    {
      const char *name = i < G_N_ELEMENTS (cube_fields) ? cube_fields[i] : i == n - 3 ? "batch" : i == n - 2 ? "aBatch" : "bBatch";
      g_string_append_printf (s, "  uint64_t %s%s;  /* %" G_GUINT64_FORMAT " */\n", i < G_N_ELEMENTS (cube_fields) ? "cube" : "",
                              name, v[i]);
    }
}
