"""A heat-map that answers the pointer: the picture (matplotlib PNG: axes, colour bar), the
value under the pointer (``[i, j] = v``) and, for arrays of three or more dimensions, a slider
over the slices of the leading axes (a volume's depth, a batch of 2-d fields).

All of it is plain HTML with a small script in the output, no widget model and no kernel round
trip: it works in JupyterLab, in a notebook saved and opened again, and in nbconvert's HTML.
Where scripts do not run (GitHub, an untrusted notebook) the picture is still there, showing
the first slice. Each output keeps its own data on its own element (no ids, no shared state but
the one script object), so any number of them can share a page.

The values shown on hover come from a copy of the array sampled to ``HOVER_SIDE`` per side (so
exact for arrays up to that size; above it, the nearest sampled element, with its own index);
a moved slider draws the slice from the same copy, in the picture's colours and limits.
"""

import base64
import html

import numpy as np

HOVER_SIDE = 128          # per side of a slice
MAX_SLICES = 64           # slider positions at most (every k-th slice beyond)
BUDGET = 1 << 17          # values embedded at most (about 700 kB of base64 float32)

SCRIPT = """<script>if(!window.wpiHeat1)window.wpiHeat1={
num(s){return s.split(',').filter(x=>x!=='').map(Number);},
data(b){if(!b._v){const s=atob(b.dataset.v),u=new Uint8Array(s.length);for(let i=0;i<s.length;i++)u[i]=s.charCodeAt(i);
 b._v=new({f4:Float32Array,f8:Float64Array,i4:Int32Array})[b.dataset.dt](u.buffer);}return b._v;},
fmt(v){return Number.isNaN(v)?'nan':Number.isInteger(v)?String(v):String(Number(v.toPrecision(6)));},
lead(b,k){const L=this.num(b.dataset.lead),ix=[];for(let d=L.length-1;d>=0;d--){ix.unshift(k%L[d]);k=Math.floor(k/L[d]);}return ix;},
grid(b){const [R,C]=this.num(b.dataset.shape),[sk,sy,sx]=this.num(b.dataset.step);return [R,C,sk,sy,sx,Math.ceil(R/sy),Math.ceil(C/sx)];},
hover(b,e){const img=b.querySelector('img'),r=img.getBoundingClientRect(),q=this.num(b.dataset.box),out=b.querySelector('.wpi-readout');
 const u=((e.clientX-r.left)/r.width-q[0])/(q[2]-q[0]),v=((e.clientY-r.top)/r.height-q[1])/(q[3]-q[1]);
 if(!(u>=0&&u<1&&v>=0&&v<1)){out.textContent=b.dataset.hint;return;}
 const [R,C,sk,sy,sx,gr,gc]=this.grid(b),gi=Math.floor(Math.floor(v*R)/sy),gj=Math.floor(Math.floor(u*C)/sx),k=b._k||0;
 const val=this.data(b)[(k/sk)*gr*gc+gi*gc+gj];
 out.textContent='['+this.lead(b,k).concat([gi*sy,gj*sx]).join(', ')+'] = '+this.fmt(val);},
slice(inp){const b=inp.closest('.wpi-heat'),[R,C,sk,sy,sx,gr,gc]=this.grid(b),k=Number(inp.value)*sk;b._k=k;
 b.querySelector('.wpi-slice-label').textContent='['+this.lead(b,k).join(', ')+', :, :]';
 const cv=b.querySelector('canvas'),img=b.querySelector('img');if(k===0){cv.style.display='none';return;}
 const [lo,hi]=this.num(b.dataset.lim),lut=atob(b.dataset.lut),d=this.data(b),o=(k/sk)*gr*gc;
 cv.width=gc;cv.height=gr;const ctx=cv.getContext('2d'),im=ctx.createImageData(gc,gr);
 for(let p=0;p<gr*gc;p++){const x=d[o+p];let c=[136,136,136];
  if(Number.isFinite(x)){const t=Math.min(255,Math.max(0,Math.floor((x-lo)/((hi-lo)||1)*256)));
   c=[lut.charCodeAt(3*t),lut.charCodeAt(3*t+1),lut.charCodeAt(3*t+2)];}
  im.data.set([c[0],c[1],c[2],255],4*p);}
 ctx.putImageData(im,0,0);const q=this.num(b.dataset.box),w=img.clientWidth,h=img.clientHeight;
 Object.assign(cv.style,{display:'block',left:(img.offsetLeft+q[0]*w)+'px',top:(img.offsetTop+q[1]*h)+'px',
  width:((q[2]-q[0])*w)+'px',height:((q[3]-q[1])*h)+'px'});}
};</script>"""

HINT = "point at the picture for a value"


def steps(shape):
    """(slice step, row step, column step) of the embedded copy of an array of ``shape``."""
    rows, cols = shape[-2:]
    lead = int(np.prod(shape[:-2], dtype=np.int64))
    sy, sx = (max(1, -(-n // HOVER_SIDE)) for n in (rows, cols))
    per_slice = -(-rows // sy) * -(-cols // sx)
    slices = max(1, min(lead, MAX_SLICES, BUDGET // per_slice))
    return -(-lead // slices), sy, sx


def colour_limits(values, vmin=None, vmax=None):
    """(low, high): ``vmin``/``vmax`` where given, else the finite values' own (0, 1 where
    there are none)."""
    v = np.asarray(values)
    if v.dtype == np.bool_:
        v = v.astype(np.uint8)
    finite = v[np.isfinite(v)] if np.issubdtype(v.dtype, np.floating) else v.reshape(-1)
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    return (lo if vmin is None else float(vmin)), (hi if vmax is None else float(vmax))


def _packed(values):
    """(typed-array code, base64 of the little-endian values) for the page's script."""
    kind = values.dtype
    if kind == np.int32:
        code, out = "i4", values.astype("<i4")
    elif kind.itemsize >= 8 or kind == np.uint32:    # float64, 64-bit ints, uint32: exact in f8
        code, out = "f8", values.astype("<f8")
    else:                          # float16/32, bool, 8/16-bit ints: exact in float32
        code, out = "f4", values.astype("<f4")
    return code, base64.b64encode(np.ascontiguousarray(out).tobytes()).decode()


def heatmap_block(values, title=None, cmap="viridis", vmin=None, vmax=None):
    """The HTML of a heat-map of ``values`` (a NumPy array, 2-d or more: the last two axes are
    the picture, the leading ones the slider's) with its hover read-out."""
    from .plots import colour_table, data_uri, heatmap_picture
    rows, cols = values.shape[-2:]
    flat = values.reshape(-1, rows, cols)
    lo, hi = colour_limits(values, vmin, vmax)
    png, box = heatmap_picture(flat[0], title, cmap, lo, hi)
    sk, sy, sx = steps(values.shape)
    code, data = _packed(flat[::sk, ::sy, ::sx])
    lead = values.shape[:-2]
    attrs = {"shape": f"{rows},{cols}", "step": f"{sk},{sy},{sx}", "lead": ",".join(map(str, lead)),
             "box": ",".join(f"{x:.5f}" for x in box), "lim": f"{lo!r},{hi!r}", "dt": code, "v": data,
             "hint": HINT}
    slider = ""
    if lead:
        attrs["lut"] = base64.b64encode(colour_table(cmap)).decode()
        first = ", ".join("0" for _ in lead)
        slider = (f"<div class='wpi-slicer'><input type='range' class='wpi-slider' min='0' "
                  f"max='{-(-flat.shape[0] // sk) - 1}' step='1' value='0' "
                  f"oninput='window.wpiHeat1&&wpiHeat1.slice(this)' aria-label='slice'/> "
                  f"<span class='wpi-slice-label' style='font-family:monospace'>[{first}, :, :]</span>"
                  f"{_every(sk)}</div>")
    data_attrs = " ".join(f"data-{k}='{html.escape(v, quote=True)}'" for k, v in attrs.items())
    return (f"<div class='wpi-heat' style='position:relative;display:block;width:fit-content;text-align:left' "
            f"{data_attrs} onmousemove='window.wpiHeat1&&wpiHeat1.hover(this,event)'>"
            f"<img class='wpi-heatmap' src='{data_uri(png)}' alt='heat-map of a {rows}x{cols} "
            f"{'slice' if lead else 'array'}' style='max-width:100%;display:block'/>"
            f"<canvas class='wpi-slice' style='position:absolute;display:none;pointer-events:none;"
            f"image-rendering:pixelated'></canvas>{slider}"
            f"<div class='wpi-readout' style='font-family:monospace;font-size:90%;min-height:1.3em'>"
            f"</div></div>{SCRIPT}")


def _every(step):
    return f" <span style='color:#555'>(one slice in {step})</span>" if step > 1 else ""
