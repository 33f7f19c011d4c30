{
  "targets": [
    {
      "target_name": "rred_native",
      "sources": [
        "src/addon.c",
        "src/attention.c",
        "src/args.c",
        "src/blas.c",
        "src/copy.c",
        "src/elementwise.c",
        "src/fused.c",
        "src/gather.c",
        "src/linear.c",
        "src/pool.c",
        "src/reduce.c",
        "src/softmax.c"
      ],
      "include_dirs": ["<!(node openblas-paths.js include)"],
      "libraries": [
        "-L<!(node openblas-paths.js lib)",
        "-Wl,-rpath,<!(node openblas-paths.js lib)",
        "-lopenblas"
      ],
      "cflags": ["-std=gnu11", "-O3", "-march=native", "-mprefer-vector-width=512", "-fopenmp-simd", "-fno-math-errno", "-fno-trapping-math", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "cflags!": ["-O2", "-O0"]
    }
  ]
}
