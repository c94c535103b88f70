# xsflow encode from every input format: lossless round trips (.yuv, .y4m,
# .ppm with the RCT, .pgm) compared byte for byte, a target rate giving the
# exact size, a profile, and refusals with exit status 2.
# Arguments: XSFLOW, VECTOR (a 4:4:4 12-bit .jxs), WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(run expect)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "${ARGN}: exit ${rc}, expected ${expect}\n${out}${err}")
  endif()
endfunction()
function(same a b)
  file(SHA256 ${a} ha)
  file(SHA256 ${b} hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${a} and ${b} differ")
  endif()
endfunction()
set(W ${WORK_DIR})
foreach(fmt yuv y4m ppm pgm)
  run(0 ${XSFLOW} decode ${VECTOR} -o ${W}/src.${fmt} -q)
endforeach()
# Lossless from each reader.
run(0 ${XSFLOW} encode ${W}/src.yuv --size 320x180 --sampling 444 --depth 12 --lossless -o ${W}/yuv.jxs -q)
run(0 ${XSFLOW} decode ${W}/yuv.jxs -o ${W}/yuv_back.yuv -q)
same(${W}/src.yuv ${W}/yuv_back.yuv)
run(0 ${XSFLOW} encode ${W}/src.y4m --lossless -o ${W}/y4m.jxs -q)
run(0 ${XSFLOW} decode ${W}/y4m.jxs -o ${W}/y4m_back.y4m -q)
same(${W}/src.y4m ${W}/y4m_back.y4m)
run(0 ${XSFLOW} encode ${W}/src.ppm --lossless -o ${W}/ppm.jxs -q)
run(0 ${XSFLOW} decode ${W}/ppm.jxs -o ${W}/ppm_back.ppm -q)
same(${W}/src.ppm ${W}/ppm_back.ppm)
run(0 ${XSFLOW} encode ${W}/src.pgm --lossless --nly 1 --nlx 3 -o ${W}/pgm.jxs -q)
run(0 ${XSFLOW} decode ${W}/pgm.jxs -o ${W}/pgm_back.pgm -q)
same(${W}/src.pgm ${W}/pgm_back.pgm)
# A target: exactly floor(3 * 320 * 180 / 8) = 21600 bytes, every tool option spelled out.
run(0 ${XSFLOW} encode ${W}/src.yuv --size 320x180 --sampling 444 --depth 12 --bpp 3 --rc precinct
    --nlx 4 --nly 1 --quant uniform --sign-packing 0 --run-mode 1 --modes raw,nopred,sig,vpred
    --slice-height 32 --long-headers -o ${W}/rate.jxs -q)
file(SIZE ${W}/rate.jxs size)
if(NOT size EQUAL 21600)
  message(FATAL_ERROR "rate.jxs has ${size} bytes, expected 21600")
endif()
run(0 ${XSFLOW} decode ${W}/rate.jxs -o ${W}/rate.yuv -q)
# A profile: Main 444.12 takes NLy=1 by itself; High 444.12 is checked.
run(0 ${XSFLOW} encode ${W}/src.y4m --bpp 4 --profile main444.12 -o ${W}/main.jxs -q)
run(0 ${XSFLOW} decode ${W}/main.jxs -o ${W}/main.yuv -q)
run(2 ${XSFLOW} encode ${W}/src.y4m --bpp 4 --profile main444.12 --nly 2 -o ${W}/bad.jxs -q)
# Refusals: no rate, a rate too low for the picture, an unknown option.
run(2 ${XSFLOW} encode ${W}/src.y4m -o ${W}/bad.jxs)
run(2 ${XSFLOW} encode ${W}/src.y4m --bpp 0.05 -o ${W}/bad.jxs)
run(2 ${XSFLOW} encode ${W}/src.y4m --bpp 3 --no-such-option -o ${W}/bad.jxs)
