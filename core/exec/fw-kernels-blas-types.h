/* fw-kernels-blas-types.h: instantiates the typed loops header named by FW_LOOPS once per floating type the
 * BLAS-backed kernels compute in: float (FW_FN names end in _f, FW_GEMM is fw_blas_sgemm) and double (_d,
 * fw_blas_dgemm). Included once by each kernel file, after it defines FW_LOOPS; so no include guard. */

#define FW_T float
#define FW_FN(name) name##_f
#define FW_GEMM fw_blas_sgemm
#include FW_LOOPS
#undef FW_T
#undef FW_FN
#undef FW_GEMM

#define FW_T double
#define FW_FN(name) name##_d
#define FW_GEMM fw_blas_dgemm
#include FW_LOOPS
#undef FW_T
#undef FW_FN
#undef FW_GEMM

#undef FW_LOOPS
