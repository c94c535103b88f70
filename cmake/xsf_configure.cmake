# SPDX-License-Identifier: BSD-2-Clause
# Writes the installed files that name installed paths (the .pc file, the
# systemd units) from cmake/install/NAME.in, with the prefix of this
# install (cmake --install --prefix, or CMAKE_INSTALL_PREFIX; cpack's
# /usr). Run at install time by the rules of cmake/XsfInstall.cmake, which
# set XSF_IN, XSF_OUT, XSF_FILES, XSF_VERSION and the relative XSF_*DIR.
set(XSF_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(XSF_BINDIR "${XSF_PREFIX}/${XSF_BINDIR}")
set(XSF_DATADIR "${XSF_PREFIX}/${XSF_DATADIR}")
foreach(f IN LISTS XSF_FILES)
  configure_file(${XSF_IN}/${f}.in ${XSF_OUT}/${f} @ONLY)
endforeach()
