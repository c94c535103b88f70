"""Rewrites xs/gpu_encoder.cu for the CPU emulation (run.sh): kernel launches
k<<<grid, block, smem, stream>>>(args) become emu_launch(k, grid, block, smem,
stream, args), and the dynamic shared memory becomes the launch's buffer."""
import re
import sys

src = open(sys.argv[1]).read()
src = re.sub(r'(\w+)<<<(.*?)>>>\(', r'emu_launch(\1, \2, ', src, flags=re.S)
src = src.replace('extern __shared__ uint8_t smem[];', 'uint8_t *smem = emu_dyn_smem;')
open(sys.argv[2], 'w').write(src)
