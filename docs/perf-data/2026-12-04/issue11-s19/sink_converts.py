import re,sys
src=open(sys.argv[1]).read().split('\n')
m={}; conv={}
out=[]; nf=[0]
fmax=max(int(x) for x in re.findall(r'%f(\d+)', '\n'.join(src)))+1
cnt=fmax
seen_bar=False
fresh=[]
for line in src:
    mm=re.match(r'\s*mov\.b32 \{(%h\d+), (%h\d+)\}, (%r\d+);',line)
    if mm:
        m[mm.group(1)]=(mm.group(3),'lo'); m[mm.group(2)]=(mm.group(3),'hi')
    mm=re.match(r'(\s*)cvt\.f32\.bf16 (%f\d+), (%h\d+);',line)
    if mm and mm.group(3) in m:
        r,h=m[mm.group(3)]
        conv[mm.group(2)]=(r,h)
        op = f"shl.b32 {{d}}, {r}, 16;" if h=="lo" else f"and.b32 {{d}}, {r}, -65536;"
        op2 = f"prmt.b32 {{d}}, {r}, 0, 0x1044;" if h=="lo" else f"prmt.b32 {{d}}, {r}, 0, 0x3244;"
        conv[mm.group(2)]=op2
        out.append('\t'+op.format(d=mm.group(2))); continue
    if 'bar.sync' in line: seen_bar=True
    if seen_bar and not line.strip().startswith('.'):
        regs=set(re.findall(r'%f\d+\b',line))
        # only operand uses (not the def)
        dm=re.match(r'\s*[a-z.0-9]+ (%f\d+),',line)
        d=dm.group(1) if dm else None
        for rg in regs:
            if rg in conv and rg!=d:
                nr=f"%f{cnt}"; cnt+=1
                out.append('\t'+conv[rg].format(d=nr))
                line=re.sub(re.escape(rg)+r'\b',nr,line)
    out.append(line)
s='\n'.join(out)
s=re.sub(r'\.reg \.f32 %f<\d+>;', f'.reg .f32 %f<{cnt}>;', s)
open(sys.argv[2],'w').write(s)
