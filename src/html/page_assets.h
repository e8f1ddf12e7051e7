/* page_assets.h: the page's style and script, src/html/page/page.css and
 * src/html/page/page.js, made into C strings at build time
 * (src/html/page/embed.py). */
#ifndef MHA_PAGE_ASSETS_H
#define MHA_PAGE_ASSETS_H

extern const char page_css[];
extern const char page_js[];

#endif
