# xsflow play on the command line. --headless writes what the window would
# show: for every --colour value its pixels must be the C decoder's picture
# converted as documented (pixel_check), and the same picture as `decode`'s
# .ppm with that colour in decode's words (within 1 code value). Bad
# arguments give status 2, a missing frame status 1. Without offscreen GL it
# prints "skipped: ..." (SKIP_REGULAR_EXPRESSION: a cmake script cannot exit 77).
# -DXSFLOW=... -DPIXEL_CHECK=... -DVECTORS=... -DOUT=...
file(MAKE_DIRECTORY ${OUT})
set(vector ${VECTORS}/fmt_yuv422_10b.jxs)

# play_check(NAME VECTOR COLOUR [play options...]): play --headless with
# --colour COLOUR (none if empty) into OUT/NAME.ppm, then pixel_check.
function(play_check name vector colour)
  set(colour_args)
  if(NOT colour STREQUAL "")
    set(colour_args --colour ${colour})
  endif()
  execute_process(COMMAND ${XSFLOW} play ${vector} --headless ${OUT}/${name}.ppm --cpu ${colour_args} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND err MATCHES "no offscreen rendering|no display")
    message("skipped: ${err}")
    set(skipped 1 PARENT_SCOPE)
    return()
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "play ${vector} ${colour_args} ${ARGN} failed (${rc}): ${err}")
  endif()
  set(frame_args)
  if(ARGN)
    set(frame_args ${ARGN}) # --frame N
  endif()
  execute_process(COMMAND ${PIXEL_CHECK} ${vector} play ${OUT}/${name}.ppm ${colour_args} ${frame_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "play --headless ${colour_args} ${ARGN}: not the C decoder's picture: ${err}")
  endif()
endfunction()

# Every --colour value on a 10-bit 4:2:2 picture; the default is 709,narrow.
set(skipped 0)
play_check(default ${vector} "")
if(skipped)
  return()
endif()
foreach(colour 709 601 2020 709,full 601,full 2020,full bt709,narrow rgb gbr rgb,narrow gbr,narrow)
  string(REPLACE "," "-" name "${colour}")
  play_check(${name} ${vector} ${colour})
endforeach()
# The RGB vectors (components G B R), 4:2:0 over odd sizes, a later frame.
play_check(rgb8-gbr ${VECTORS}/fmt_rgb_8b.jxs gbr)
play_check(rgb12-gbr ${VECTORS}/fmt_rgb_12b.jxs gbr)
play_check(odd420 ${VECTORS}/geom_334x78_420.jxs 601,full)
play_check(frame3 ${VECTORS}/seq_5f_422_10b.jxs "" --frame 3)

# play and decode show one picture for each colour (8-bit pictures, so that
# decode's .ppm has play's 8 bits): decode's words, then play's.
foreach(pair "gbr=gbr" "rgb=rgb" "bt709=709" "bt601=601" "bt709-full=709,full" "bt601-full=601,full")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 dname)
  list(GET pair 1 pname)
  foreach(v fmt_rgb_8b geom_334x78_420)
    set(d ${OUT}/decode-${v}-${dname}.ppm)
    string(REPLACE "," "-" p ${OUT}/play-${v}-${pname}.ppm)
    execute_process(COMMAND ${XSFLOW} decode ${VECTORS}/${v}.jxs -o ${d} --colour ${dname} --cpu -q RESULT_VARIABLE rc1)
    execute_process(COMMAND ${XSFLOW} play ${VECTORS}/${v}.jxs --headless ${p} --colour ${pname} --cpu -q RESULT_VARIABLE rc2)
    execute_process(COMMAND ${PIXEL_CHECK} --same ${d} ${p} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "${out}${err}")
    if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT rc EQUAL 0)
      message(FATAL_ERROR "${v}: decode --colour ${dname} (${rc1}) and play --colour ${pname} (${rc2}) differ: ${err}")
    endif()
  endforeach()
endforeach()

execute_process(COMMAND ${XSFLOW} play ${vector} --headless ${OUT}/play-9.ppm --frame 9 RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "frame 9 does not exist")
  message(FATAL_ERROR "--frame 9 of a 1-frame file: status ${rc}, '${err}'")
endif()
foreach(bad "--colour;709,wide" "--fps;0" "--frame;2" "--delay;-1" "--bogus")
  execute_process(COMMAND ${XSFLOW} play ${vector} ${bad} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^xsflow: ")
    message(FATAL_ERROR "play ${bad}: status ${rc} (2 expected), '${err}'")
  endif()
endforeach()
