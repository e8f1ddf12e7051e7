/* colormap.c: the diverging colour map of the pictures. */
#include "colormap.h"

#include <math.h>

/* ColorBrewer RdBu, 11 classes, from blue (negative) to red (positive) */
static const rgb rdbu_r[11] = {
    {5, 48, 97},     {33, 102, 172},  {67, 147, 195},  {146, 197, 222},
    {209, 229, 240}, {247, 247, 247}, {253, 219, 199}, {244, 165, 130},
    {214, 96, 77},   {178, 24, 43},   {103, 0, 31},
};

rgb diverging_color(double x)
{
    if (isnan(x))
        x = 0.5;
    if (x < 0.0)
        x = 0.0;
    if (x > 1.0)
        x = 1.0;
    double at = x * 10.0;
    int i = (int)at;
    if (i > 9)
        i = 9;
    double f = at - i;
    rgb a = rdbu_r[i], b = rdbu_r[i + 1];
    rgb c = {
        (unsigned char)lround(a.r + f * (b.r - a.r)),
        (unsigned char)lround(a.g + f * (b.g - a.g)),
        (unsigned char)lround(a.b + f * (b.b - a.b)),
    };
    return c;
}
