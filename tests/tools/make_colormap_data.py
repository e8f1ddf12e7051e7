"""make_colormap_data.py OUT.c: src/render/colormap_data.c from matplotlib
(python3-matplotlib): the 256 colours of its listed maps and the anchors
of the segmented ones that --cmap names, digit for digit. Run it again to
add a map, then list it in colormap.h and docs/cli.md.

A listed map's numbers have at most six decimals: they are written as
whole millionths (0.267004 as 267004), which colormap.c divides by 1e6,
giving the same double as the decimal (one correctly rounded division of
the same exact quotient); the script checks that for every number. As
integers they take a third of the page's core that doubles would."""
import sys
import matplotlib
from matplotlib import _cm, _cm_listed
listed = ['viridis', 'magma', 'inferno', 'plasma', 'cividis']
brewer = ['Blues', 'Greens', 'Greys', 'Oranges', 'Purples', 'Reds', 'YlGnBu', 'YlOrRd', 'RdBu', 'PuOr', 'RdYlBu', 'Spectral']
out = []
out.append('/* colormap_data.c: the colour maps of --cmap, as matplotlib 3.6 defines\n'
           ' * them (matplotlib/_cm_listed.py and matplotlib/_cm.py): the 256\n'
           ' * colours of each perceptually uniform map (by Stefan van der Walt,\n'
           ' * Nathaniel Smith and Eric Firing, CC0; cividis by Jamie Nuñez, Ryan\n'
           ' * Renslow and Chris Anderton), the anchor colours of Cynthia Brewer\'s\n'
           ' * ColorBrewer maps (www.colorbrewer.org, Apache License 2.0) and of\n'
           ' * Kenneth Moreland\'s coolwarm, copied digit for digit. colormap.c\n'
           ' * builds the same 256-entry tables matplotlib does from them.\n'
           ' * Written by tests/tools/make_colormap_data.py. */\n'
           '#include "render/colormap_data.h"\n\n/* clang-format off */\n')
def fmt(v):
    r = repr(float(v))
    return r
def millionths(v):
    k = round(float(v) * 1e6)
    assert 0 <= k <= 1000000 and k / 1e6 == float(v), v
    return '%d' % k
for n in listed:
    cols = getattr(_cm_listed, '_%s_data' % n)
    out.append('static const uint32_t %s_millionths[256][3] = {\n' % n)
    for c in cols:
        out.append('    {%s, %s, %s},\n' % tuple(millionths(x) for x in c))
    out.append('};\n\n')
for n in brewer:
    cols = _cm.datad[n]
    out.append('static const double %s_rgb[%d][3] = {\n' % (n, len(cols)))
    for c in cols:
        out.append('    {%s, %s, %s},\n' % tuple(fmt(x) for x in c))
    out.append('};\n\n')
d = _cm.datad['coolwarm']
xs = [p[0] for p in d['red']]
assert xs == [p[0] for p in d['green']] == [p[0] for p in d['blue']]
for ch in 'red', 'green', 'blue':
    assert all(p[1] == p[2] for p in d[ch])
out.append('static const double coolwarm_at[%d] = {\n' % len(xs))
for x in xs:
    out.append('    %s,\n' % fmt(x))
out.append('};\n\nstatic const double coolwarm_rgb[%d][3] = {\n' % len(xs))
for i in range(len(xs)):
    out.append('    {%s, %s, %s},\n' % tuple(fmt(d[ch][i][1]) for ch in ('red','green','blue')))
out.append('};\n\n')
out.append('const colormap_def colormap_defs[] = {\n')
for n in listed:
    out.append('    {"%s", true, 256, NULL, NULL, %s_millionths},\n' % (n, n))
for n in brewer:
    out.append('    {"%s", false, %d, %s_rgb, NULL, NULL},\n' % (n, len(_cm.datad[n]), n))
out.append('    {"coolwarm", false, %d, coolwarm_rgb, coolwarm_at, NULL},\n' % len(xs))
out.append('};\n/* clang-format on */\n\nconst size_t colormap_def_count =\n    sizeof colormap_defs / sizeof colormap_defs[0];\n')
open(sys.argv[1], 'w').write(''.join(out))
