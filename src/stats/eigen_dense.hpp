#pragma once
// Eigen with GCC 12's false -Wmaybe-uninitialized positives in its AVX-512 kernels silenced
// (GCC bug 105593, in avx512fintrin.h); every other warning stays an error. Everything in
// synthaudit includes Eigen through this header.
//
// EIGEN_DONT_PARALLELIZE: Eigen would otherwise split large products over omp_get_max_threads()
// threads, the calling thread's OpenMP setting, not the thread count of the evaluation
// (core/threads.hpp); synthaudit parallelises its own loops around Eigen instead.
#ifndef EIGEN_DONT_PARALLELIZE
#define EIGEN_DONT_PARALLELIZE
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#pragma GCC diagnostic pop
