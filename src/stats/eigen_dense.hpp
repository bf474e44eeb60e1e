#pragma once
// Eigen with GCC 12's false -Wmaybe-uninitialized positives in its AVX-512 kernels silenced
// (GCC bug 105593, in avx512fintrin.h); every other warning stays an error.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#pragma GCC diagnostic pop
