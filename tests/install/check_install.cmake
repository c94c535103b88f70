# SPDX-License-Identifier: BSD-2-Clause
# The installed product, as a user gets it (tests/install/CMakeLists.txt):
#   STEP=tree     cmake --install BUILD --prefix WORK/prefix; the files that
#                 must be there (program, libxsflow.so.X.Y.Z with its SONAME,
#                 headers, xsflow.pc, man pages, units, licence, plugin), and
#                 every installed header compiles alone with only the
#                 installed headers (none includes one that is not installed)
#   STEP=decode   decode_vector.c built with the C compiler CC and
#                 `pkg-config --cflags --libs xsflow` against the prefix,
#                 decoding vectors/xs/VECTOR.jxs: its MD5 and size as
#                 MANIFEST.tsv says
#   STEP=demo     the installed `xsflow demo` passes
#   STEP=gst      gst-inspect-1.0 reads the installed plugin: its licence,
#                 package and origin
#   STEP=deb      cpack -G DEB (CPACK in BUILD's CPackConfig.cmake): the
#                 package holds the same files under /usr as the prefix
foreach(var STEP BUILD WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_install.cmake: ${var} not given")
  endif()
endforeach()
set(prefix ${WORK}/prefix)

# run(NAME COMMAND...): runs it; fails the test with its output unless it
# exits with 0; its standard output in ${NAME}_out.
macro(run name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE ${name}_out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${cmd}: exit status ${rc}\n${${name}_out}\n${err}")
  endif()
endmacro()

function(require)
  foreach(f IN LISTS ARGN)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
endfunction()

# The installed library's directory (lib, or lib/<multiarch> where the
# configuration chose it), from the .pc file.
function(libdir var)
  file(STRINGS ${prefix}/${LIBDIR}/pkgconfig/xsflow.pc line REGEX "^libdir=")
  string(REPLACE "libdir=\${prefix}" "${prefix}" dir "${line}")
  set(${var} ${dir} PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "tree")
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  run(install ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
  require(bin/xsflow ${LIBDIR}/libxsflow.so ${LIBDIR}/libxsflow.so.${SOVERSION}
          ${LIBDIR}/libxsflow.so.${VERSION} ${LIBDIR}/pkgconfig/xsflow.pc
          include/xsflow/xsf.h include/xsflow/xs.h include/xsflow/image_io.h
          share/xsflow/systemd/xsflow-recv@.service share/xsflow/systemd/xsflow-node.service
          share/xsflow/sysctl.d/60-xsflow.conf share/doc/xsflow/LICENSE share/doc/xsflow/copyright)
  if(MAN)
    require(share/man/man1/xsflow.1 share/man/man1/xsflow-decode.1 share/man/man1/xsflow-recv.1)
  endif()
  if(GST_PLUGIN_DIR)
    require(${GST_PLUGIN_DIR}/libgstxsflow.so)
  endif()
  # The units run the installed program.
  file(READ ${prefix}/share/xsflow/systemd/xsflow-recv@.service unit)
  if(NOT unit MATCHES "ExecStart=${prefix}/bin/xsflow recv ")
    message(FATAL_ERROR "xsflow-recv@.service does not run ${prefix}/bin/xsflow")
  endif()
  # The SONAME.
  find_program(READELF readelf)
  if(READELF)
    run(readelf ${READELF} -d ${prefix}/${LIBDIR}/libxsflow.so.${VERSION})
    if(NOT readelf_out MATCHES "Library soname: \\[libxsflow\\.so\\.${SOVERSION}\\]")
      message(FATAL_ERROR "libxsflow.so.${VERSION}: no SONAME libxsflow.so.${SOVERSION}:\n${readelf_out}")
    endif()
  endif()
  # Every header alone, against the installed headers only.
  file(GLOB headers RELATIVE ${prefix}/include/xsflow ${prefix}/include/xsflow/*.h)
  list(LENGTH headers n)
  foreach(h IN LISTS headers)
    file(WRITE ${WORK}/header.c "#include <${h}>\n")
    run(header ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I${prefix}/include/xsflow
        ${WORK}/header.c)
  endforeach()
  message(STATUS "installed into ${prefix}; ${n} headers compile alone")
  return()
endif()

if(NOT EXISTS ${prefix}/bin/xsflow)
  message(FATAL_ERROR "${prefix}: not installed (the test install.tree sets it up)")
endif()

if(STEP STREQUAL "decode")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(pc ${PKG_CONFIG} --cflags --libs xsflow)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_out}")
  libdir(lib)
  set(san "")
  if(SANITIZE)
    set(san -fsanitize=${SANITIZE})
  endif()
  run(cc ${CC} -std=c11 -Wall -Wextra -Werror ${san} ${SOURCE}/decode_vector.c ${pc_flags}
      -Wl,-rpath,${lib} -o ${WORK}/decode_vector)
  # The program uses the installed library (its rpath), not another.
  find_program(LDD ldd)
  if(LDD)
    run(ldd ${LDD} ${WORK}/decode_vector)
    if(NOT ldd_out MATCHES "libxsflow\\.so\\.${SOVERSION} => ${lib}/libxsflow\\.so\\.${SOVERSION}")
      message(FATAL_ERROR "decode_vector does not load ${lib}/libxsflow.so.${SOVERSION}:\n${ldd_out}")
    endif()
  endif()

  # The vector's row of the manifest, by its header's column names.
  file(STRINGS ${VECTOR_DIR}/MANIFEST.tsv rows)
  list(GET rows 0 header)
  string(REPLACE "\t" ";" columns "${header}")
  list(FIND columns decoded_bytes bytes_col)
  list(FIND columns decoded_md5 md5_col)
  set(want "")
  foreach(row IN LISTS rows)
    if(row MATCHES "^${VECTOR}\t")
      string(REPLACE "\t" ";" want "${row}")
    endif()
  endforeach()
  if(NOT want OR bytes_col LESS 0 OR md5_col LESS 0)
    message(FATAL_ERROR "${VECTOR_DIR}/MANIFEST.tsv: no row ${VECTOR} with decoded_bytes and decoded_md5")
  endif()
  list(GET want ${bytes_col} bytes)
  list(GET want ${md5_col} md5)

  set(out ${WORK}/${VECTOR}.yuv)
  file(REMOVE ${out})
  run(decode ${WORK}/decode_vector ${VECTOR_DIR}/${VECTOR}.jxs ${out})
  file(SIZE ${out} size)
  file(MD5 ${out} got)
  if(NOT got STREQUAL md5 OR NOT size EQUAL bytes)
    message(FATAL_ERROR "${VECTOR}: decoded ${size} bytes with MD5 ${got} through the installed "
                        "library; MANIFEST.tsv: ${bytes} bytes, MD5 ${md5}")
  endif()
  message(STATUS "${VECTOR}: ${size} bytes, MD5 ${got} as in MANIFEST.tsv, "
                 "through the installed headers, xsflow.pc and libxsflow.so")
  file(REMOVE ${out})
elseif(STEP STREQUAL "demo")
  file(MAKE_DIRECTORY ${WORK}/demo)
  run(demo ${prefix}/bin/xsflow demo -o ${WORK}/demo/demo.y4m)
  if(NOT demo_out MATCHES "match +yes")
    message(FATAL_ERROR "the installed xsflow demo did not say 'match yes':\n${demo_out}")
  endif()
  message(STATUS "${demo_out}")
elseif(STEP STREQUAL "gst")
  set(ENV{GST_PLUGIN_PATH} ${prefix}/${GST_PLUGIN_DIR})
  set(ENV{GST_REGISTRY} ${WORK}/gst-registry.bin)
  run(inspect ${GST_INSPECT} ${prefix}/${GST_PLUGIN_DIR}/libgstxsflow.so)
  foreach(field "License +BSD" "Source module +xsflow" "Binary package +xsflow"
                "Origin URL +${ORIGIN}")
    if(NOT inspect_out MATCHES "\n *${field}\n")
      message(FATAL_ERROR "gst-inspect-1.0 of the installed plugin: no '${field}':\n${inspect_out}")
    endif()
  endforeach()
  message(STATUS "the installed plugin: licence BSD, package xsflow, origin ${ORIGIN}")
elseif(STEP STREQUAL "deb")
  find_program(DPKG_DEB dpkg-deb REQUIRED)
  file(REMOVE_RECURSE ${WORK}/deb)
  run(cpack ${CPACK} --config ${BUILD}/CPackConfig.cmake -G DEB -B ${WORK}/deb)
  file(GLOB deb ${WORK}/deb/*.deb)
  list(LENGTH deb n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "cpack -G DEB made ${n} packages in ${WORK}/deb:\n${cpack_out}")
  endif()
  run(contents ${DPKG_DEB} --contents ${deb})
  # "./usr/PATH" of every file and link (a link's line ends "-> TARGET").
  string(REGEX MATCHALL "\\./usr/[^\n]*[^/\n]\n" lines "${contents_out}\n")
  set(in_deb "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "^\\./usr/([^ \n]+).*" "\\1" path "${l}")
    list(APPEND in_deb ${path})
  endforeach()
  file(GLOB_RECURSE in_prefix LIST_DIRECTORIES false RELATIVE ${prefix} ${prefix}/*)
  list(SORT in_deb)
  list(SORT in_prefix)
  if(NOT in_deb STREQUAL in_prefix)
    string(REPLACE ";" "\n  " a "${in_deb}")
    string(REPLACE ";" "\n  " b "${in_prefix}")
    message(FATAL_ERROR "the .deb's files under /usr:\n  ${a}\nthe prefix's:\n  ${b}")
  endif()
  list(LENGTH in_deb n)
  message(STATUS "${deb}: the ${n} files of the prefix, under /usr")
else()
  message(FATAL_ERROR "check_install.cmake: STEP ${STEP}?")
endif()
