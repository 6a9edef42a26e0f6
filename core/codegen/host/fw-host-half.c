/* fw-host-half.c: float16 and bfloat16 in host SuperKernels. Half values live in memory as uint16_t and in
 * float32 registers inside the kernel: a group computes in float32 and rounds once, to nearest even, where
 * a value leaves it (docs/design.md §6.1, "Half precision"). The generated code carries scalar
 * conversions (branch-free, so loops holding them still vectorise) and row converters that use F16C or
 * AVX-512 when the host's CPU has them: the host passes its features in the runtime table, so one object
 * runs on any x86-64 and takes the wide instructions where they exist. A compute root's half operands are
 * converted whole into float32 panels for sgemm (fp16 in, fp32 accumulate, as the cube unit does). */
#include "config.h"

#include "fw-host-codegen-private.h"

gboolean
fw_hc_is_half (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16;
}

const char *
fw_hc_half_letter (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 ? "h" : dtype == FW_DTYPE_BFLOAT16 ? "b" : NULL;
}

/* The scalar conversions are the branch-free forms of Maratos' FP16 library: exact for float16 → float32,
 * round-to-nearest-even for float32 → float16 (the rounding is the FPU's own, in the default mode; the
 * flags keep the compiler from reassociating it), NaN stays a quiet NaN, overflow gives ±infinity.
 * bfloat16 is the top half of a float32: widening is a shift, narrowing adds the rounding bias (round to
 * nearest even) except for NaN, which is truncated with its quiet bit set. */
static const char half_scalar[] =
  "static inline float\nfw_bits2f (uint32_t u)\n{\n  float f;\n  memcpy (&f, &u, 4);\n  return f;\n}\n\n"
  "static inline uint32_t\nfw_f2bits (float f)\n{\n  uint32_t u;\n  memcpy (&u, &f, 4);\n  return u;\n}\n\n"
  "static inline float\nfw_h2f (uint16_t h)\n{\n"
  "  const uint32_t w = (uint32_t) h << 16, sign = w & 0x80000000u, two_w = w + w;\n"
  "  const float norm = fw_bits2f ((two_w >> 4) + (0xe0u << 23)) * 0x1.0p-112f;\n"
  "  const float denorm = fw_bits2f ((two_w >> 17) | (126u << 23)) - 0.5f;\n"
  "  return fw_bits2f (sign | (two_w < (1u << 27) ? fw_f2bits (denorm) : fw_f2bits (norm)));\n}\n\n"
  "static inline uint16_t\nfw_f2h (float f)\n{\n"
  "  float base = (fabsf (f) * 0x1.0p+112f) * 0x1.0p-110f;\n"
  "  const uint32_t w = fw_f2bits (f), shl1_w = w + w, sign = w & 0x80000000u;\n"
  "  uint32_t bias = shl1_w & 0xff000000u;\n"
  "  bias = bias < 0x71000000u ? 0x71000000u : bias;\n"
  "  base = fw_bits2f ((bias >> 1) + 0x07800000u) + base;\n"
  "  const uint32_t bits = fw_f2bits (base);\n"
  "  const uint32_t nonsign = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);\n"
  "  return (uint16_t) ((sign >> 16) | (shl1_w > 0xff000000u ? 0x7e00u : nonsign));\n}\n\n"
  "static inline float\nfw_b2f (uint16_t b)\n{\n  return fw_bits2f ((uint32_t) b << 16);\n}\n\n"
  "static inline uint16_t\nfw_f2b (float f)\n{\n"
  "  const uint32_t u = fw_f2bits (f);\n"
  "  const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;\n"
  "  return (uint16_t) ((u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) | 0x40u) : r);\n}\n\n";

/* Row converters: cpu is the runtime table's features (FW_SK_CPU_*, defined by the prelude). F16C and AVX-512F by inline assembly
 * (vcvtph2ps, vcvtps2ph with imm 0: round to nearest even), ending in vzeroupper so the SSE code around
 * them pays no transition (it names every vector register clobbered: it zeroes their upper halves, and
 * the AVX2 body would otherwise keep ymm values live across it, inlined or through -fipa-ra): immintrin.h would add 0.65 s to every half kernel's compile, three times the
 * rest. The portable loops vectorise at the baseline width; the AVX2 clones of the bfloat16 loops are the
 * same loops, compiled wider. */
static const char half_rows[] =
  "#if FW_SK_X86\n"
  "#define FW_VZEROUPPER() __asm__ volatile (\"vzeroupper\" : : : \"memory\", \"xmm0\", \"xmm1\", \"xmm2\", \"xmm3\", \"xmm4\", "
  "\"xmm5\", \"xmm6\", \"xmm7\", \"xmm8\", \"xmm9\", \"xmm10\", \"xmm11\", \"xmm12\", \"xmm13\", \"xmm14\", \"xmm15\")\n"
  "static void\nfw_h2f_row_f16c (const uint16_t *restrict s, float *restrict d, int64_t n)\n{\n"
  "  int64_t i = 0;\n"
  "  for (; i + 8 <= n; i += 8)\n"
  "    __asm__ volatile (\"vcvtph2ps (%1), %%ymm0\\n\\tvmovups %%ymm0, (%0)\" : : \"r\" (d + i), \"r\" (s + i) : \"xmm0\", \"memory\");\n"
  "  FW_VZEROUPPER ();\n"
  "  for (; i < n; i++)\n    d[i] = fw_h2f (s[i]);\n}\n\n"
  "static void\nfw_f2h_row_f16c (const float *restrict s, uint16_t *restrict d, int64_t n)\n{\n"
  "  int64_t i = 0;\n"
  "  for (; i + 8 <= n; i += 8)\n"
  "    __asm__ volatile (\"vmovups (%1), %%ymm0\\n\\tvcvtps2ph $0, %%ymm0, (%0)\" : : \"r\" (d + i), \"r\" (s + i) : \"xmm0\", \"memory\");\n"
  "  FW_VZEROUPPER ();\n"
  "  for (; i < n; i++)\n    d[i] = fw_f2h (s[i]);\n}\n\n"
  "static void\nfw_h2f_row_avx512 (const uint16_t *restrict s, float *restrict d, int64_t n)\n{\n"
  "  int64_t i = 0;\n"
  "  for (; i + 16 <= n; i += 16)\n"
  "    __asm__ volatile (\"vcvtph2ps (%1), %%zmm0\\n\\tvmovups %%zmm0, (%0)\" : : \"r\" (d + i), \"r\" (s + i) : \"xmm0\", \"memory\");\n"
  "  FW_VZEROUPPER ();\n"
  "  for (; i < n; i++)\n    d[i] = fw_h2f (s[i]);\n}\n\n"
  "static void\nfw_f2h_row_avx512 (const float *restrict s, uint16_t *restrict d, int64_t n)\n{\n"
  "  int64_t i = 0;\n"
  "  for (; i + 16 <= n; i += 16)\n"
  "    __asm__ volatile (\"vmovups (%1), %%zmm0\\n\\tvcvtps2ph $0, %%zmm0, (%0)\" : : \"r\" (d + i), \"r\" (s + i) : \"xmm0\", \"memory\");\n"
  "  FW_VZEROUPPER ();\n"
  "  for (; i < n; i++)\n    d[i] = fw_f2h (s[i]);\n}\n\n"
  "__attribute__ ((target (\"avx2\"))) static void\n"
  "fw_b2f_row_avx2 (const uint16_t *restrict s, float *restrict d, int64_t n)\n{\n"
  "  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_b2f (s[i]);\n}\n\n"
  "__attribute__ ((target (\"avx2\"))) static void\n"
  "fw_f2b_row_avx2 (const float *restrict s, uint16_t *restrict d, int64_t n)\n{\n"
  "  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_f2b (s[i]);\n}\n"
  "#endif\n\n"
  "static inline void\nfw_h2f_row (int cpu, const uint16_t *restrict s, float *restrict d, int64_t n)\n{\n"
  "#if FW_SK_X86\n"
  "  if (cpu & FW_SK_CPU_AVX512)\n    {\n      fw_h2f_row_avx512 (s, d, n);\n      return;\n    }\n"
  "  if (cpu & FW_SK_CPU_F16C)\n    {\n      fw_h2f_row_f16c (s, d, n);\n      return;\n    }\n"
  "#endif\n  (void) cpu;\n  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_h2f (s[i]);\n}\n\n"
  "static inline void\nfw_f2h_row (int cpu, const float *restrict s, uint16_t *restrict d, int64_t n)\n{\n"
  "#if FW_SK_X86\n"
  "  if (cpu & FW_SK_CPU_AVX512)\n    {\n      fw_f2h_row_avx512 (s, d, n);\n      return;\n    }\n"
  "  if (cpu & FW_SK_CPU_F16C)\n    {\n      fw_f2h_row_f16c (s, d, n);\n      return;\n    }\n"
  "#endif\n  (void) cpu;\n  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_f2h (s[i]);\n}\n\n"
  "static inline void\nfw_b2f_row (int cpu, const uint16_t *restrict s, float *restrict d, int64_t n)\n{\n"
  "#if FW_SK_X86\n"
  "  if (cpu & FW_SK_CPU_AVX2)\n    {\n      fw_b2f_row_avx2 (s, d, n);\n      return;\n    }\n"
  "#endif\n  (void) cpu;\n  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_b2f (s[i]);\n}\n\n"
  "static inline void\nfw_f2b_row (int cpu, const float *restrict s, uint16_t *restrict d, int64_t n)\n{\n"
  "#if FW_SK_X86\n"
  "  if (cpu & FW_SK_CPU_AVX2)\n    {\n      fw_f2b_row_avx2 (s, d, n);\n      return;\n    }\n"
  "#endif\n  (void) cpu;\n  for (int64_t i = 0; i < n; i++)\n    d[i] = fw_f2b (s[i]);\n}\n\n";

void
fw_hc_append_half_helpers (GString *src)
{
  g_string_append (src, half_scalar);
  g_string_append (src, half_rows);
}

void
fw_hc_widen_row_invariant (Gen *g)
{
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      char buf[32];
      /* Only across rows: a flat chain has one row in chunks, and its input widened whole would be converted
         on one thread outside the parallel region, into a buffer as large as the input. */
      gboolean invariant = v->kind == SV_EXTERNAL && fw_hc_is_half (v->dtype) && fw_hc_val_in_space (v) && v->panel < 0 &&
                           g->n_rows > 1;

      for (gint k = 0; invariant && k < g->n_lead; k++)
        invariant = LEAD_STRIDE (v, k) == 0;
      if (!invariant)
        continue;
      /* Converted per row it would cost as much as the row itself (a LayerNorm's scale and bias). */
      v->panel = g->n_panels;
      fw_hc_root_operand (g, v, buf, sizeof buf);
      v->dtype = FW_DTYPE_FLOAT;
    }
}

/* A compute root's operand as the float32 the sgemm or the direct loop reads: the input itself, or for a
 * half input a panel converted from it before the product (freed at the entry's end). */
const char *
fw_hc_root_operand (Gen *g, SkVal *v, char *buf, gsize len)
{
  gint64 n = 1;

  if (!fw_hc_is_half (v->dtype))
    {
      g_snprintf (buf, len, "in%d", v->in_index);
      return buf;
    }
  for (gint d = 0; d < v->value->rank; d++)
    n *= v->value->dims[d].value;
  g_string_append_printf (g->body, "  hp[%d] = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                          "  if (!hp[%d]) goto out;\n  fw_%s2f_row (cpu, in%d, hp[%d], %" G_GINT64_FORMAT ");\n",
                          g->n_panels, n, g->n_panels, fw_hc_half_letter (v->dtype), v->in_index, g->n_panels, n);
  g_snprintf (buf, len, "hp[%d]", g->n_panels);
  g->n_panels++;
  return buf;
}
