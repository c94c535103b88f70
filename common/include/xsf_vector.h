/* XSF_VECTOR_CLONES: put before a function whose loops are the widest of
 * a hot path, to compile it for AVX2 as well where the compiler can, the
 * body chosen at run time (GCC's target_clones on x86-64 Linux). A portable
 * build has the plain loop only; so has a ThreadSanitizer build, whose
 * instrumented resolver would run before the sanitizer is set up. */
#ifndef XSF_VECTOR_H
#define XSF_VECTOR_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    !defined(__SANITIZE_THREAD__)
#define XSF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define XSF_VECTOR_CLONES
#endif

#endif
