#!/usr/bin/env python3
# Checks the MFMA register layouts of sim/src/shader/mfma.rs (restated
# below: a_at, d_at, the cbsz/abid block rule and blgp_lane) against AMD's
# Matrix Instruction Calculator for every CDNA2 (gfx90a) MFMA: the A and B
# operand lane and bit of every element under every cbsz/abid/blgp value
# the calculator accepts, and the C/D register and lane of every element.
#
# Usage: python3 verify_mfma_layouts.py /path/to/amd_matrix_instruction_calculator
# (a checkout of github.com/ROCm/amd_matrix_instruction_calculator; Debian's
# python3-tabulate; run it with /usr/bin/python3 if another python lacks it).
# Not run by cargo test: the calculator is not part of this repository.
import os
import sys
import subprocess, re
MC = os.path.join(sys.argv[1], "matrix_calculator.py")
OPS = {  # name: (M, N, K, blocks, bits, a_regs)
 'v_mfma_f32_32x32x1f32':(32,32,1,2,32,1),'v_mfma_f32_16x16x1f32':(16,16,1,4,32,1),
 'v_mfma_f32_4x4x1f32':(4,4,1,16,32,1),'v_mfma_f32_32x32x2f32':(32,32,2,1,32,1),
 'v_mfma_f32_16x16x4f32':(16,16,4,1,32,1),'v_mfma_f32_32x32x4f16':(32,32,4,2,16,2),
 'v_mfma_f32_16x16x4f16':(16,16,4,4,16,2),'v_mfma_f32_4x4x4f16':(4,4,4,16,16,2),
 'v_mfma_f32_32x32x8f16':(32,32,8,1,16,2),'v_mfma_f32_16x16x16f16':(16,16,16,1,16,2),
 'v_mfma_i32_32x32x4i8':(32,32,4,2,8,1),'v_mfma_i32_16x16x4i8':(16,16,4,4,8,1),
 'v_mfma_i32_4x4x4i8':(4,4,4,16,8,1),'v_mfma_i32_32x32x8i8':(32,32,8,1,8,1),
 'v_mfma_i32_16x16x16i8':(16,16,16,1,8,1),'v_mfma_f32_32x32x4bf16_1k':(32,32,4,2,16,2),
 'v_mfma_f32_16x16x4bf16_1k':(16,16,4,4,16,2),'v_mfma_f32_4x4x4bf16_1k':(4,4,4,16,16,2),
 'v_mfma_f32_32x32x8bf16_1k':(32,32,8,1,16,2),'v_mfma_f32_16x16x16bf16_1k':(16,16,16,1,16,2),
 'v_mfma_f32_32x32x2bf16':(32,32,2,2,16,1),'v_mfma_f32_16x16x2bf16':(16,16,2,4,16,1),
 'v_mfma_f32_4x4x2bf16':(4,4,2,16,16,1),'v_mfma_f32_32x32x4bf16':(32,32,4,1,16,1),
 'v_mfma_f32_16x16x8bf16':(16,16,8,1,16,1),'v_mfma_f64_16x16x4f64':(16,16,4,1,64,2),
 'v_mfma_f64_4x4x4f64':(4,4,4,4,64,2)}
def calc(args):
    r = subprocess.run([sys.executable, MC, '-a', 'cdna2']+args+['-R','-c'],capture_output=True,text=True)
    return r.stdout
def parse(out, which):
    res = {}; blocks = None; header = None
    for line in out.splitlines():
        m = re.match(r'Blocks? ([\d, ]+)$', line)
        if m: blocks = [int(x) for x in m.group(1).split(',')]; continue
        if line.startswith('A[M][K]') or line.startswith('B[K][N]'):
            header = [int(x) for x in line.split(',')[1:]]; continue
        if header and re.match(r'^\d+,', line):
            cells = line.split(','); row = int(cells[0])
            for col, cell in zip(header, cells[1:]):
                m = re.match(r'v(?:\[(\d+):(\d+)\]|(\d+))\{(\d+)\}(?:\.\[(\d+):(\d+)\])?$', cell)
                assert m, cell
                reg = int(m.group(3)) if m.group(3) is not None else 0
                lane = int(m.group(4))
                lo = int(m.group(6)) if m.group(6) is not None else 0
                for b in blocks:
                    res[(b, row, col)] = (lane, reg * 32 + lo)
    return res
def a_at(o, i, k, b):
    M,N,K,B,bits,ar = o; kpl = 32*ar//bits
    g = (k//kpl)*B + b
    return (M*g + i, (k % kpl)*bits)
def blgp_lane(g, l):
    return [l, l%32, 32+l%32, (l+16)%64, l%16, 16+l%16, 32+l%16, 48+l%16][g]
checked = 0
for name, o in OPS.items():
    M,N,K,B,bits,ar = o
    wide = bits == 64
    multi = B > 1 and not wide
    combos = [(0,0)] + ([(c,a) for c in range(1, B.bit_length()) for a in range(1<<c)] if multi else [])
    for c,a in combos:
        got = parse(calc(['-i',name,'-A','--cbsz',str(c),'--abid',str(a)]), 'A')
        assert got, (name,c,a)
        for (b,i,k),(lane,bit) in got.items():
            sb = ((b >> c) << c) + a if c else b
            assert a_at(o,i,k,sb) == (lane,bit), (name,c,a,b,i,k,a_at(o,i,k,sb),(lane,bit))
            checked += 1
    for g in (range(8) if not wide else [0]):
        got = parse(calc(['-i',name,'-B','--blgp',str(g)]), 'B')
        assert got, (name,g)
        for (b,k,j),(lane,bit) in got.items():
            l0,e = a_at(o,j,k,b)
            assert (blgp_lane(g,l0), e) == (lane,bit), (name,g,b,k,j)
            checked += 1
print('ok', checked, 'elements checked')
def d_at(o, i, j, b):
    M,N,K,B,bits,ar = o
    if bits == 64:
        return (2*(i//4), 16*(i%4) + N*b + j)
    groups = 64//N; q = b*M//4 + i//4
    return (4*(q//groups) + i%4, N*(q%groups) + j)
dchecked = 0
for name, o in OPS.items():
    out = calc(['-i',name,'-D'])
    res = {}; blocks=None; header=None
    for line in out.splitlines():
        m = re.match(r'Blocks? ([\d, ]+)$', line)
        if m: blocks=[int(x) for x in m.group(1).split(',')]; continue
        if line.startswith('D[M][N]') or line.startswith('C[M][N]'):
            header=[int(x) for x in line.split(',')[1:]]; continue
        if header and re.match(r'^\d+,', line):
            cells=line.split(','); row=int(cells[0])
            for col,cell in zip(header,cells[1:]):
                m = re.match(r'[va](?:\[(\d+):(\d+)\]|(\d+))\{(\d+)\}$', cell)
                assert m, cell
                reg = int(m.group(3)) if m.group(3) is not None else int(m.group(2))
                for b in blocks:
                    assert d_at(o,row,col,b) == (reg,int(m.group(4))), (name,b,row,col,d_at(o,row,col,b),reg,m.group(4))
                    dchecked += 1
print('ok', dchecked, 'D elements checked')
