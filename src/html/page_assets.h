/* page_assets.h: the page's style and script, src/page/page.css and
 * src/page/page.js, made into C strings at build time (src/page/embed.py). */
#ifndef MHA_PAGE_ASSETS_H
#define MHA_PAGE_ASSETS_H

extern const char page_css[];
extern const char page_js[];

#endif
