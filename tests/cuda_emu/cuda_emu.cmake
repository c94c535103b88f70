# The host emulation of CUDA that the `emulated` tests share (tests/cuda_emu):
# CUDA sources compiled as host C++ against cuda_emu.h and the runtime
# stand-in of cuda_runtime_api.h, every GPU thread a fiber (ucontext), the
# wavelet plans over the C reference. CI has no GPU: these tests check the
# kernels' logic and the host code around them there; the device remains
# where speed and real-hardware behaviour are checked. Needs a C++17
# compiler and POSIX ucontext (Linux); left out under XSF_SANITIZE (whose
# build it would double). With XSF_CUDA_EMU_SANITIZE=ON (off by default: it
# takes the emulated tests from about 5 to 8.5 minutes of CPU; the
# encoder's cuda_emu/run.sh turns it on), the emulated code and what links
# it run under AddressSanitizer and UndefinedBehaviorSanitizer, which follow
# the fibers (no switch leaves a function they watch): a kernel's
# out-of-bounds access or overflow fails the test, as no GPU would say.
#
# Defines XSF_CUDA_EMU (ON where built), the library xsf_cuda_emu (the
# emulation: link it, and <cuda_runtime.h>, <cuda_runtime_api.h> and
# <cub/...> resolve to the stand-ins),
#   xsf_cuda_emu_rewrite(VAR source.cu)
# which sets VAR to a generated C++ file: source.cu with its launches
# rewritten (rewrite_launches.cmake), regenerated when source.cu changes,
# and xsf_xs_emulated: xs/ (xsf_xs) with its GPU decoder and encoder
# emulated, for tests/xs, tests/xs_enc and tests/pipeline. Their emulated
# tests link it instead of xsf_xs, whose GPU code (or stubs) it replaces.
# xsf_host_c_sources(VAR target): the C sources of a library, as absolute
# paths, without its CUDA files and the stubs that stand in for them
# (*_stub.c): what an emulated build compiles around its emulated CUDA code.
function(xsf_host_c_sources var target)
  get_target_property(dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(out "")
  foreach(f IN LISTS sources)
    if(f MATCHES "\\.c$" AND NOT f MATCHES "_stub\\.c$")
      if(NOT IS_ABSOLUTE ${f})
        set(f ${dir}/${f})
      endif()
      list(APPEND out ${f})
    endif()
  endforeach()
  set(${var} ${out} PARENT_SCOPE)
endfunction()

include(CheckLanguage)
check_language(CXX)
set(XSF_CUDA_EMU OFF)
if(CMAKE_CXX_COMPILER AND NOT XSF_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  enable_language(CXX)
  set(XSF_CUDA_EMU ON)
  set(XSF_CUDA_EMU_DIR ${CMAKE_CURRENT_LIST_DIR})
  add_library(xsf_cuda_emu STATIC ${XSF_CUDA_EMU_DIR}/cuda_emu.cpp ${XSF_CUDA_EMU_DIR}/cuda_runtime_emu.cpp
                                  ${XSF_CUDA_EMU_DIR}/wavelet_cuda_emu.cpp)
  target_include_directories(xsf_cuda_emu BEFORE PUBLIC ${XSF_CUDA_EMU_DIR})
  target_compile_features(xsf_cuda_emu PUBLIC cxx_std_17)
  # No fused multiply-add: the host's floating point as the C reference's;
  # #pragma unroll is a hint for nvcc alone.
  target_compile_options(xsf_cuda_emu PUBLIC
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas -ffp-contract=off>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${XSF_WERROR}>>:-Werror>)
  target_link_libraries(xsf_cuda_emu PUBLIC xsf_wavelet xsf_common ${MATH_LIB})
  option(XSF_CUDA_EMU_SANITIZE "The emulated CUDA tests under ASan and UBSan" OFF)
  if(XSF_CUDA_EMU_SANITIZE)
    target_compile_options(xsf_cuda_emu PUBLIC -fsanitize=address,undefined -fno-omit-frame-pointer
                           -fno-sanitize-recover=all)
    target_link_options(xsf_cuda_emu PUBLIC -fsanitize=address,undefined)
  endif()

  function(xsf_cuda_emu_rewrite var cu)
    get_filename_component(name ${cu} NAME_WE)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/emulated/${name}.cpp)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DIN=${cu} -DOUT=${out} -P ${XSF_CUDA_EMU_DIR}/rewrite_launches.cmake
      DEPENDS ${cu} ${XSF_CUDA_EMU_DIR}/rewrite_launches.cmake
      COMMENT "Rewriting the launches of ${name}.cu for the host emulation" VERBATIM)
    set(${var} ${out} PARENT_SCOPE)
  endfunction()

  xsf_cuda_emu_rewrite(xs_gpu_decoder_emu ${PROJECT_SOURCE_DIR}/xs/gpu_decoder.cu)
  xsf_cuda_emu_rewrite(xs_gpu_encoder_emu ${PROJECT_SOURCE_DIR}/xs/gpu_encoder.cu)
  xsf_host_c_sources(xs_emu_c_sources xsf_xs)
  add_library(xsf_xs_emulated STATIC ${xs_emu_c_sources} ${xs_gpu_decoder_emu} ${xs_gpu_encoder_emu})
  # Its public headers, and (white-box, for the emulated tests too) the
  # folder's internal ones.
  target_include_directories(xsf_xs_emulated PUBLIC ${PROJECT_SOURCE_DIR}/xs/include ${PROJECT_SOURCE_DIR}/xs)
  target_link_libraries(xsf_xs_emulated PUBLIC xsf_cuda_emu xsf_wavelet xsf_common PRIVATE xsf_warnings)
endif()
