/* colormap.c: the diverging colour map of the pictures. */
#include "plot/colormap.h"

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
    return ramp_color(rdbu_r, 10, x);
}
