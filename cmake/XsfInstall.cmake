# SPDX-License-Identifier: BSD-2-Clause
# What `cmake --install build [--prefix P]` and `cpack -G DEB` put on a
# machine, set on the targets the folders define (included from the top
# CMakeLists.txt after them):
#   bin/xsflow                          the program (its libraries linked in)
#   lib/libxsflow.so.X.Y.Z              the libraries in one shared object,
#        (SONAME libxsflow.so.X)        only the installed headers' symbols exported
#   include/xsflow/*.h                  those headers
#   lib/pkgconfig/xsflow.pc             Cflags -I${includedir}/xsflow, Libs -lxsflow
#   <GStreamer plugin dir>/libgstxsflow.so   where the plugin is built
#   share/man/man1/xsflow*.1            a page per command, from its --help
#   share/xsflow/systemd/*.service      example units: a receiver, an NMOS node
#   share/xsflow/sysctl.d/*.conf        the receive buffer size they want
#   share/doc/xsflow/                   LICENSE, copyright, README.md, SECURITY.md
# Paths inside the installed files (the units' ExecStart, the .pc's prefix)
# are those of the prefix given at install time.
include(GNUInstallDirs)

option(XSF_MAN "Man pages from each command's --help (runs the built program)" ON)
option(XSF_INSTALL_SYSTEMD "Also install the systemd units into lib/systemd/system" OFF)
set(XSF_PACKAGE_ORIGIN "Unknown package origin" CACHE STRING
    "Where this build comes from (a URL where there is one): the GStreamer plugin's origin")
set(XSF_PACKAGE_CONTACT "the xsflow developers" CACHE STRING "The .deb's maintainer")

# ---- libxsflow.so: the component libraries in one shared object ----
#
# One library, not one per folder: the folders are layers of one product
# whose headers include each other (service.h includes display.h,
# pipeline.h, rtp.h, ...), so a user links them all anyway, and one SONAME
# is one ABI to keep. The program and the GStreamer plugin keep linking
# the static libraries (they use internal headers too, and stay
# independent of the installed library's version).
set(xsf_lib_parts "")
foreach(t xsf_common xsf_wavelet xsf_wavelet_cuda xsf_xs xsf_bpc xsf_codecs xsf_imgio xsf_compare
          xsf_rtp xsf_pipeline xsf_display xsf_nmos xsf_service)
  if(TARGET ${t})
    list(APPEND xsf_lib_parts ${t})
    # Into a shared object: position-independent code (the CUDA objects
    # too: nvcc passes -fPIC to the host compiler). Calls inside the
    # libraries stay direct and inlinable: nothing relies on interposing
    # their functions.
    set_property(TARGET ${t} PROPERTY POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${t} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-semantic-interposition>)
  endif()
endforeach()

# The public headers, one a line (a new public header is added here, as a
# source file is to its library's list). Not API, so not installed: md5.h
# (the program's MD5 helper; it exposes Nettle's context), xsf_cuda_device.h
# (an inline helper for the libraries' own CUDA files), xsf_cli.h (the
# programs' option parser, target xsf_cli, not in libxsflow); wavelet_cuda.h
# only with CUDA, nmos.h only with the node.
set(XSF_PUBLIC_HEADERS
  bpc/include/bpc.h
  codec/include/xsf_codecs.h
  common/include/xsf.h
  common/include/xsf_clock.h
  common/include/xsf_codec.h
  common/include/xsf_colour.h
  common/include/xsf_option.h
  common/include/xsf_output.h
  common/include/xsf_parse.h
  common/include/xsf_picture.h
  common/include/xsf_pixfmt_pack.h
  common/include/xsf_pool.h
  compare/include/compare.h
  display/include/display.h
  imgio/include/encode_file.h
  imgio/include/image_io.h
  imgio/include/jxs_file.h
  imgio/include/picture_source.h
  pipeline/include/pipeline.h
  pipeline/include/pl_encode.h
  rtp/include/rtp.h
  rtp/include/rtp_merge.h
  rtp/include/rtp_receive.h
  rtp/include/rtp_send_session.h
  rtp/include/rtp_sender.h
  service/include/service.h
  service/include/svc_decode.h
  wavelet/include/wavelet.h
  xs/include/xs.h
)
if(XSF_HAVE_CUDA)
  list(APPEND XSF_PUBLIC_HEADERS wavelet/include/wavelet_cuda.h)
endif()
if(TARGET xsf_nmos)
  list(APPEND XSF_PUBLIC_HEADERS nmos/include/nmos.h)
endif()
list(TRANSFORM XSF_PUBLIC_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/)
list(SORT XSF_PUBLIC_HEADERS)

# The exported symbols: a version script written from the archives and the
# headers at build time (cmake/xsf_exports.cmake).
set(xsf_map ${CMAKE_CURRENT_BINARY_DIR}/xsflow.map)
set(xsf_archives "")
foreach(t IN LISTS xsf_lib_parts)
  list(APPEND xsf_archives $<TARGET_FILE:${t}>)
endforeach()
string(JOIN "|" xsf_archives_arg ${xsf_archives})
string(JOIN "|" xsf_headers_arg ${XSF_PUBLIC_HEADERS})
add_custom_command(OUTPUT ${xsf_map}
  COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} "-DARCHIVES=${xsf_archives_arg}"
          "-DHEADERS=${xsf_headers_arg}" -DOUT=${xsf_map}
          -P ${PROJECT_SOURCE_DIR}/cmake/xsf_exports.cmake
  DEPENDS ${xsf_lib_parts} ${XSF_PUBLIC_HEADERS} ${PROJECT_SOURCE_DIR}/cmake/xsf_exports.cmake
  COMMENT "Listing the symbols libxsflow exports (the installed headers' functions)"
  VERBATIM)

# Every object of every part (not only those something refers to); the
# parts themselves are linked too, for what their interfaces bring (libpcap,
# Nettle, the CUDA runtime, ...): every symbol of theirs is defined by the
# objects already, so no member of theirs is taken twice.
set(xsf_objects "")
foreach(t IN LISTS xsf_lib_parts)
  list(APPEND xsf_objects $<TARGET_OBJECTS:${t}>)
endforeach()
add_library(xsflow_shared SHARED ${xsf_objects} ${xsf_map})
target_link_libraries(xsflow_shared PRIVATE ${xsf_lib_parts})
set(xsf_lib_language C)
if(XSF_HAVE_CUDA)
  set(xsf_lib_language CUDA) # the host stubs of the kernels are C++
endif()
set_target_properties(xsflow_shared PROPERTIES
  OUTPUT_NAME xsflow
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  LINKER_LANGUAGE ${xsf_lib_language}
  CUDA_RUNTIME_LIBRARY Shared
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  LINK_DEPENDS ${xsf_map})
target_link_options(xsflow_shared PRIVATE "LINKER:--version-script=${xsf_map}")
if(NOT XSF_SANITIZE AND NOT XSF_FUZZ)
  # Every symbol it uses is resolved by a library it names (the sanitizers'
  # runtimes are the executable's).
  target_link_options(xsflow_shared PRIVATE "LINKER:--no-undefined")
endif()

# ---- install rules ----
install(TARGETS xsflow RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS xsflow_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${XSF_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xsflow)

# The GStreamer plugin: into the prefix's plugin folder, found as
# GStreamer's own pluginsdir relative to its prefix (Debian:
# lib/x86_64-linux-gnu/gstreamer-1.0), so that a /usr prefix puts it where
# GStreamer looks; elsewhere GST_PLUGIN_PATH must name the folder.
if(TARGET gstxsflow)
  if(NOT XSF_GST_PLUGIN_DIR)
    pkg_get_variable(xsf_gst_pluginsdir gstreamer-1.0 pluginsdir)
    pkg_get_variable(xsf_gst_prefix gstreamer-1.0 prefix)
    set(xsf_dir ${CMAKE_INSTALL_LIBDIR}/gstreamer-1.0)
    if(xsf_gst_pluginsdir AND xsf_gst_prefix)
      string(LENGTH "${xsf_gst_prefix}/" n)
      string(SUBSTRING "${xsf_gst_pluginsdir}" 0 ${n} head)
      if(head STREQUAL "${xsf_gst_prefix}/")
        string(SUBSTRING "${xsf_gst_pluginsdir}" ${n} -1 xsf_dir)
      endif()
    endif()
    set(XSF_GST_PLUGIN_DIR ${xsf_dir} CACHE STRING
        "Where the GStreamer plugin goes, relative to the install prefix")
  endif()
  install(TARGETS gstxsflow LIBRARY DESTINATION ${XSF_GST_PLUGIN_DIR})
  target_compile_definitions(gstxsflow PRIVATE "XSF_PACKAGE_ORIGIN=\"${XSF_PACKAGE_ORIGIN}\"")
endif()

# Files that name installed paths are written at install time, from
# cmake/install/*.in, with the prefix then given (cmake/xsf_configure.cmake).
set(xsf_templates xsflow.pc xsflow-recv@.service xsflow-node.service)
set(xsf_configured ${CMAKE_CURRENT_BINARY_DIR}/install-configured)
install(CODE "
  set(XSF_IN \"${PROJECT_SOURCE_DIR}/cmake/install\")
  set(XSF_OUT \"${xsf_configured}\")
  set(XSF_FILES \"${xsf_templates}\")
  set(XSF_VERSION \"${PROJECT_VERSION}\")
  set(XSF_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(XSF_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(XSF_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(XSF_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/xsf_configure.cmake\")")
install(FILES ${xsf_configured}/xsflow.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(xsf_units ${xsf_configured}/xsflow-recv@.service ${xsf_configured}/xsflow-node.service)
install(FILES ${xsf_units} DESTINATION ${CMAKE_INSTALL_DATADIR}/xsflow/systemd)
if(XSF_INSTALL_SYSTEMD)
  install(FILES ${xsf_units} DESTINATION lib/systemd/system)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/install/60-xsflow.conf
        DESTINATION ${CMAKE_INSTALL_DATADIR}/xsflow/sysctl.d)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/cmake/install/copyright
              ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/SECURITY.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages: one per command, its --help as the page (cmake/xsf_man.cmake),
# written once the program is built.
if(XSF_MAN)
  set(xsf_man_dir ${CMAKE_CURRENT_BINARY_DIR}/man)
  add_custom_command(OUTPUT ${xsf_man_dir}/xsflow.1
    COMMAND ${CMAKE_COMMAND} -DXSFLOW=$<TARGET_FILE:xsflow> -DOUT=${xsf_man_dir}
            -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/xsf_man.cmake
    DEPENDS xsflow ${PROJECT_SOURCE_DIR}/cmake/xsf_man.cmake
    COMMENT "Man pages from xsflow's --help"
    VERBATIM)
  add_custom_target(xsf_man ALL DEPENDS ${xsf_man_dir}/xsflow.1)
  install(DIRECTORY ${xsf_man_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          FILES_MATCHING PATTERN "*.1")
endif()

# ---- cpack -G DEB: the same files as a Debian package ----
set(CPACK_PACKAGE_NAME xsflow)
set(CPACK_PACKAGE_VENDOR "the xsflow developers")
set(CPACK_PACKAGE_CONTACT "${XSF_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "JPEG XS and BPC-PaCo decoding on GPUs and CPUs, ST 2110-22 (RFC 9134) transport")
set(CPACK_PACKAGE_DESCRIPTION
    "xsflow receives SMPTE ST 2110-22 streams (RTP, RFC 9134) and decodes their JPEG XS
(ISO/IEC 21122) codestreams on NVIDIA GPUs, or on the CPU with its C reference
decoder; it also encodes, sends, plays and compares with BPC-PaCo, runs an AMWA
NMOS node, and has a GStreamer plugin. The package holds the program, the
library libxsflow with its headers and pkg-config file, the plugin, man pages
and example systemd units. Licence: BSD-2-Clause.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION video)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
if(XSF_PACKAGE_ORIGIN MATCHES "^https?://")
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${XSF_PACKAGE_ORIGIN})
endif()
# Dependencies from the binaries' own needs (dpkg-shlibdeps) where the tool
# is there; libraries no package owns (a CUDA toolkit installed by NVIDIA's
# installer) are left out of the list: the package then needs that CUDA.
# Both need file(1); scripts/install-deps.sh installs them (dpkg-dev, file).
find_program(XSF_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(XSF_FILE file)
if(XSF_FILE)
  if(XSF_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  endif()
  # DEBIAN/shlibs for libxsflow.so.0, and ldconfig run on installation.
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/\\\\.fuzz-corpus/")
include(CPack)
