# Rewrites a CUDA source for a host emulation (cmake -DIN=x.cu -DOUT=x.cpp -P
# rewrite_launches.cmake): the launch syntax is not C++, so
#   kernel<<<grid, block, shared_bytes, stream>>>(args)
# becomes emu_launch(kernel, grid, block, shared_bytes, stream, args), which
# the emulation's header defines; dynamic shared memory
# (`extern __shared__ uint8_t smem[];`) becomes the launch's buffer
# emu_dyn_smem; a __grid_constant__ parameter (one read-only copy for the
# whole grid) becomes a const reference, so that thousands of emulated
# threads do not each copy it. Everything else is compiled as written, and #line keeps the
# compiler's messages pointing at the original.
if(NOT IN OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DIN=source.cu -DOUT=rewritten.cpp -P rewrite_launches.cmake")
endif()
file(READ "${IN}" src)
string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_]*)<<<" "emu_launch(\\1, " src "${src}")
string(REPLACE ">>>(" ", " src "${src}")
string(REGEX REPLACE "const __grid_constant__ ([A-Za-z_][A-Za-z0-9_:]*) " "const \\1 &" src "${src}")
string(REPLACE "extern __shared__ uint8_t smem[];" "uint8_t *smem = emu_dyn_smem;" src "${src}")
if(src MATCHES "<<<|>>>")
  message(FATAL_ERROR "${IN}: a launch the rewrite does not know (kernel<<<...>>>(args) expected)")
endif()
file(WRITE "${OUT}" "#line 1 \"${IN}\"\n${src}")
