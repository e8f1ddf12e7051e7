/* option_list.h: every command-line option, one row each, in --help's
 * order (git's OPT_* rows of parse-options.h). option_table.c includes it
 * for the ids, the rows, getopt_long's table, the short options and
 * --help; option_read.c reads every value, default and range from the
 * rows, option_checks.c where each applies and what it goes with, and
 * the live page (page_run.c) what it does with each.
 * To add an option, add its row here, and its field to options.h.
 *
 *   OPTION(id, long name, short letter or 0, --help section,
 *          place in getopt_long's table,
 *          how its value is read and where it is stored (below),
 *          .applies = where it does something, and/or
 *          .takes = what a variant's row must take for the option to
 *                   apply to it (model/lesson/variants.h: --ff goes with
 *                   the variants that have a feed-forward network),
 *          [.off_lesson, .off_checkpoint = why it does nothing where it
 *           does not apply, when the common message says too little,]
 *          .page = what the live page does with it,
 *          [GOES_WITH(message, OPT_A[, OPT_B]): given, it needs one of
 *           those options, else the message ("%s" its --name),]
 *          [.makes = the tables (catalogue.h) only a run with it makes,]
 *          .help = its help text)
 *
 * How a value is read (option_table.c defines these, option_table.h
 * tells the types):
 *   FLAG(field, default)         no value: the bool field is flipped
 *   SIZE(VALUE, field, default, lo, hi)  a whole number in [lo, hi]
 *   PROBABILITY(VALUE, field)    0 <= P < 1       (default 0)
 *   RATE_BY(VALUE, field, OPT_X, {[choice] = default, ...})  positive,
 *                                finite; its default the one of the
 *                                choice OPT_X stores (--lr's by
 *                                --optimizer's; set with --train)
 *   NAME(VALUE, field)           not empty        (default NULL)
 *   TEXT(VALUE, field)           any text         (default NULL)
 *   WORDS(VALUE, field)          a text, not empty (default NULL)
 *   LIST(VALUE, field)           a list such as 0,3,5-7 (default NULL);
 *                                given twice, refused (.one_list: set
 *                                it too on a list another way reads)
 *   CHOICE(VALUE, field, default, choices)  one of the choices' names
 *   OWN(VALUE, field, default), OWN_VALUE(VALUE)  option_own.c's parser
 *   OWN_REAL(VALUE, field, default)  option_own.c's parser, a double
 *   OWN_BY(VALUE, field, OPT_X, {[0] = default, [1] = default})
 *                                option_own.c's parser; its default the
 *                                one for the value OPT_X stores (a flag:
 *                                [1] with it; --csv-delimiter's by
 *                                --decimal-comma)
 *   OWN_NAMED(VALUE, field, name[, name])  option_own.c's parser; NULL
 *                                until given, the code then picks the
 *                                names (--cmap's maps)
 * VALUE is the value's name in --help, N_("FILE"): a placeholder the
 * reader's language translates, as the help texts that quote it do. Each
 * default is written here once: the code, and the live page (the run's
 * "defaults", cli/page_run.c), read it from the row; the help text
 * repeats it for the reader (tests/unit/test_option_rows.c checks that
 * the two agree, tests/tools/man_test.py that the man page lists the
 * rows' options with their value names and the defaults --help tells).
 *
 * The rows are grouped by section. The place in getopt_long's table is
 * the order the options were added: a shortened name that fits several
 * lists them in it, and a mistyped one is guessed in it (option_guess.c);
 * a new option takes a number below 128 that no row has (gaps are
 * allowed), and option_table.c checks that every place is taken once. No include guard: each use defines OPTION
 * and includes the list.
 *
 * The help text is one message per option, translated whole. --help
 * prints "  --name VALUE" and the text from column 21; the lines after
 * the first are indented to that column. */

/* clang-format off */
OPTION(D_MODEL, "d-model", 0, MODEL, 0,
       /* TRANSLATORS: the name of an option's value in --help and the
        * man page ("--d-model N", "--corpus FILE"), upper case where
        * the language has it, one word without spaces; the help texts
        * and messages quote it as translated here. A letter that stands
        * for a number in a formula (N, P, T, K, B) may stay as it is. */
       SIZE(N_("N"), d_model, 3, 1, MAX_WIDTH),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       /* TRANSLATORS: the help of an option in --help, from column 21
        * to at most 80 (the lines after the first are indented to
        * column 21); option names stay English, and a value's name
        * (N, FILE, ...) is written as its own translation. */
       .help = N_("embedding width d_in                 (default 3)"))
OPTION(D_OUT, "d-out", 0, MODEL, 1,
       SIZE(N_("N"), d_out, 4, 1, MAX_WIDTH),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("attention width, split over heads    (default 4)"))
OPTION(HEADS, "heads", 0, MODEL, 2,
       SIZE(N_("N"), heads, 2, 1, MAX_HEADS),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("number of heads; must divide d_out   (default 2)"))
OPTION(SEED, "seed", 0, MODEL, 3,
       OWN(N_("N"), seed, 42),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("as torch.manual_seed(N)              (default 42)"))
OPTION(NO_CAUSAL, "no-causal", 0, MODEL, 4,
       FLAG(causal, true),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("let tokens see later tokens too  (default causal)"))
OPTION(NO_SCALE, "no-scale", 0, MODEL, 5,
       FLAG(scale, true),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("no division by sqrt(head_dim)    (default scaled)"))
OPTION(QKV_BIAS, "qkv-bias", 0, MODEL, 6,
       FLAG(qkv_bias, false),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("biases in W_query, W_key, W_value  (default none)"))
OPTION(VARIANT, "variant", 0, MODEL, 7,
       OWN(N_("LIST"), variants, VARIANT_SINGLE | VARIANT_WRAPPER | VARIANT_FUSED),
       .one_list = true,
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       /* TRANSLATORS: %s is the names of every variant, listed as
        * "single, wrapper, fused, block" are; --help wraps this text
        * and adds the default ("(default %s)"), so it has no line
        * breaks. */
       .help = N_("modules to run, comma-separated: %s"),
       .filled = HELP_VARIANTS)
OPTION(DRAW, "draw", 0, MODEL, 43,
       OWN_VALUE(N_("ORDER")),
       .applies = APPLIES_LESSON, .page = PAGE_CANNOT,
       .help = N_("input and variants, comma-separated, drawn in\n"
                   "this order from one seed, as a notebook builds\n"
                   "them (default: each variant from the seed, input\n"
                   "first)"))
OPTION(DROPOUT, "dropout", 0, MODEL, 44,
       PROBABILITY(N_("P"), dropout),
       .takes = TAKES_DROPOUT, .page = PAGE_KEEPS,
       .makes = DROPOUT_TABLES,
       .help = N_("the block's nn.Dropout(P) on the attention and\n"
                   "feed-forward outputs, training mode  (default 0)"))
OPTION(ATTN_DROPOUT, "attn-dropout", 0, MODEL, 45,
       PROBABILITY(N_("P"), attn_dropout),
       .takes = TAKES_ATTN_DROPOUT, .page = PAGE_KEEPS,
       .help = N_("dropout P on the attention weights of single,\n"
                   "wrapper and fused, training mode     (default 0)"))
OPTION(FF, "ff", 0, MODEL, 28,
       SIZE(N_("N"), ff, 0, 1, 4 * MAX_WIDTH),
       .takes = TAKES_FF, .page = PAGE_KEEPS,
       .off_lesson = N_("--ff: sets the feed-forward width of --variant "
                        "block, which this run does not include"),
       .help = N_("the block's feed-forward width (default 4 x d_model)"))
OPTION(ATTN_ONLY, "attn-only", 0, MODEL, 108,
       FLAG(attn_only, false),
       .takes = TAKES_FF, .page = PAGE_KEEPS,
       .off_lesson = N_("--attn-only: leaves the feed-forward network out "
                        "of --variant block, which this run does not "
                        "include"),
       .help = N_("the block without its feed-forward network and\n"
                   "norms: out = x + attention(x)      (default off)"))
OPTION(KV, "kv", 0, MODEL, 27,
       TEXT(N_("SENTENCE"), kv),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("cross-attention: keys and values from SENTENCE,\n"
                   "no causal mask                    (default none)"))
OPTION(TOKENS, "tokens", 0, MODEL, 29,
       CHOICE(N_("HOW"), tokens, TOKENS_WORDS, token_choices),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("words, or chars: a token per character (default words)"))
OPTION(LOWER, "lower", 0, MODEL, 60,
       FLAG(rules.lower, false),
       .applies = APPLIES_LESSON, .page = PAGE_KEEPS,
       .help = N_("lower-case every word: 'O' and 'o' are one word\n"
                   "                                    (default as written)"))
OPTION(PUNCT, "punct", 0, MODEL, 61,
       CHOICE(N_("HOW"), rules.punct, PUNCT_KEEP, punct_choices),
       .applies = APPLIES_LESSON, .page = PAGE_KEEPS,
       .help = N_("punctuation at a word's ends: keep, split (a token\n"
                   "of its own) or drop                 (default keep)"))
OPTION(UNK, "unk", 0, MODEL, 62,
       FLAG(unk, false),
       .applies = APPLIES_LESSON, .page = PAGE_KEEPS,
       /* a trained model's folder makes the run a trained one */
       GOES_WITH(N_("%s: goes with --train N"), OPT_TRAIN, OPT_WEIGHTS),
       .help = N_("a trained run reads words outside its vocabulary\n"
                   "as the word <unk>, which it learns (default error)"))
OPTION(POSITIONS, "positions", 0, MODEL, 57,
       FLAG(positions, false),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .help = N_("learned positions nn.Embedding(context, d_model)\n"
                   "added to the embeddings, as GPT     (default none)"))
OPTION(TRAIN, "train", 0, MODEL, 54,
       SIZE(N_("N"), training.steps, 0, 0, TRAIN_MAX_STEPS),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       .makes = TABLE_BIT(LOSS) | TABLE_BIT(ATTN_WEIGHTS_STEPS) |
                TABLE_BIT(HEAD_SCORES_STEPS),
       .help = N_("train each variant N steps to predict the next\n"
                   "word, then show it (0 to 1000000)   (default none)"))
OPTION(LR, "lr", 0, MODEL, 55,
       RATE_BY(N_("RATE"), training.lr, OPT_OPTIMIZER,
               {[OPTIMIZER_SGD] = 0.1, [OPTIMIZER_ADAM] = 0.01}),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       GOES_WITH(N_("%s: goes with --train N"), OPT_TRAIN),
       .help = N_("the learning rate  (default 0.01 with adam, 0.1\n"
                   "with sgd)"))
OPTION(OPTIMIZER, "optimizer", 0, MODEL, 56,
       CHOICE(N_("NAME"), training.optimizer, OPTIMIZER_ADAM, optimizer_choices),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       GOES_WITH(N_("%s: goes with --train N"), OPT_TRAIN),
       .help = N_("sgd or adam, torch.optim's defaults (default adam)"))
OPTION(CORPUS, "corpus", 0, MODEL, 58,
       NAME(N_("FILE"), corpus),
       .applies = APPLIES_ANY, .page = PAGE_MODEL,
       GOES_WITH(N_("%s: goes with --train N, or with --model DIR and "
                    "--ablate-mode mean"),
                 OPT_TRAIN, OPT_ABLATE_MODE),
       .help = N_("with --train, train on the sentences of FILE's\n"
                   "--column NAME, one per step, cycling; with --model,\n"
                   "--ablate-mode mean takes each head's mean over\n"
                   "them                          (default the sentence)"))
OPTION(GRAD, "grad", 0, MODEL, 59,
       FLAG(grad, false),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       GOES_WITH(N_("%s: goes with --train N"), OPT_TRAIN),
       .help = N_("with --train, the gradients at the final\n"
                   "parameters: <name>.grad tables      (default none)"))
OPTION(QKV_ORDER, "qkv-order", 0, MODEL, 63,
       CHOICE(N_("ORDER"), training.qkv_order, QKV_ORDER_KQV, qkv_order_choices),
       .applies = APPLIES_LESSON, .page = PAGE_EDITS,
       GOES_WITH(N_("%s: goes with --train N"), OPT_TRAIN),
       .help = N_("with --train, the order the class's forward computes\n"
                   "its projections: kqv (keys first, as the book) or\n"
                   "qkv; it changes the gradients only (default kqv)"))
OPTION(GENERATE, "generate", 0, MODEL, 76,
       SIZE(N_("N"), generate, 0, 1, MAX_GENERATE),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .makes = TABLE_BIT(GENERATED) | TABLE_BIT(GENERATED_TOP) |
                TABLE_BIT(KV_CACHE_SIZE) | GENERATE_MAP_TABLES |
                GENERATE_CLEAN_TABLES,
       .help = N_("continue the text by N new tokens (1 to 100000),\n"
                   "greedy, as generate(use_cache=True) (default none)"))
OPTION(SAMPLE, "sample", 0, MODEL, 77,
       FLAG(sample, false),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("with --generate, draw each token as\n"
                   "generate(do_sample=True), seeded by --seed\n"
                   "                                    (default greedy)"))
OPTION(TEMPERATURE, "temperature", 0, MODEL, 78,
       OWN_REAL(N_("T"), temperature, 1.0),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("with --sample, divide the logits by T > 0\n"
                   "                                    (default 1.0)"))
OPTION(TOP_K, "top-k", 0, MODEL, 79,
       SIZE(N_("K"), top_k, 50, 0, MAX_TOP_K),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("with --sample, keep the K likeliest tokens\n"
                   "(0: every token, as transformers' top_k=0)\n"
                   "                                    (default 50)"))
OPTION(TOP_P, "top-p", 0, MODEL, 80,
       OWN_REAL(N_("P"), top_p, 1.0),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("with --sample, keep the likeliest tokens whose\n"
                   "probabilities add up to P, 0 < P <= 1\n"
                   "                                    (default 1.0)"))
OPTION(STOP, "stop", 0, MODEL, 81,
       WORDS(N_("TEXT"), stop),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("with --generate, stop once the new text holds\n"
                   "TEXT (and at the end-of-text token) (default none)"))
OPTION(KV_STEPS, "kv-steps", 0, MODEL, 104,
       FLAG(kv_steps, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       GOES_WITH(N_("%s: goes with --generate N"), OPT_GENERATE),
       .makes = TABLE_BIT(KV_CACHE_SIZE) | GENERATE_MAP_TABLES,
       .help = N_("with --generate, keep each step's tables: the new\n"
                   "token's query row over the cached keys and values,\n"
                   "every layer and head, and the cache's size\n"
                   "                                    (default off)"))
OPTION(EMBEDDINGS, "embeddings", 0, INPUTS, 14,
       NAME(N_("FILE"), embeddings),
       .applies = APPLIES_LESSON, .page = PAGE_CANNOT,
       .help = N_("one row per token: label, then its vector; d_model\n"
                   "is the file's width, no embedding draws (default none)"))
OPTION(RANDN_INPUT, "randn-input", 0, INPUTS, 46,
       FLAG(randn_input, false),
       .applies = APPLIES_LESSON, .page = PAGE_KEEPS,
       .help = N_("the input is torch.randn(B, T, d_model), not an\n"
                   "embedding lookup; element 0 is shown (default off)"))
OPTION(BATCH, "batch", 0, INPUTS, 47,
       SIZE(N_("B"), batch, 1, 1, MAX_BATCH),
       .applies = APPLIES_LESSON, .page = PAGE_KEEPS,
       .help = N_("the batch B the input and dropout masks are drawn\n"
                   "for, 1 to 1024                       (default 1)"))
OPTION(INPUT, "input", 0, INPUTS, 15,
       NAME(N_("FILE"), input),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("one run per data row of FILE ...    (default none)"))
OPTION(COLUMN, "column", 0, INPUTS, 16,
       NAME(N_("NAME"), column),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       GOES_WITH(N_("--column: goes with --input FILE or --corpus FILE"),
                 OPT_INPUT, OPT_CORPUS),
       .help = N_("... taking the sentence from column NAME"))
OPTION(QUIET, "quiet", 0, INPUTS, 40,
       FLAG(quiet, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("no progress line on a terminal  (default shown\n"
                   "after a second of --input or --train)"))
OPTION(WEIGHTS, "weights", 0, INPUTS, 17,
       NAME(N_("DIR"), weights),
       .applies = APPLIES_LESSON, .page = PAGE_MODEL,
       .help = N_("parameter CSVs named as --csv-dir writes them\n"
                   "replace the seeded ones             (default none)"))
OPTION(MODEL, "model", 0, INPUTS, 51,
       NAME(N_("DIR"), model),
       .applies = APPLIES_ANY, .page = PAGE_CANNOT,
       /* TRANSLATORS: %s is the model families, each with the
        * model_types of config.json it reads in parentheses, listed as
        * "GPT-2 (gpt2), Llama-style (llama, qwen2, mistral), BERT
        * (bert)" are; --help wraps this text and adds "(default none)",
        * so it has no line breaks. */
       .help = N_("a model folder from the Hugging Face hub, by its "
                  "config.json's model_type: %s; docs/models.md lists its "
                  "files"),
       .filled = HELP_FAMILIES)
OPTION(PAIR, "pair", 0, INPUTS, 70,
       WORDS(N_("TEXT"), pair),
       .applies = APPLIES_CHECKPOINT, .page = PAGE_KEEPS,
       .off_lesson = N_("%s: goes with --model DIR"),
       /* TRANSLATORS: %s is the model families that take a second
        * text ("BERT"); --help wraps this text and adds "(default
        * none)", so it has no line breaks. */
       .help = N_("with a %s --model, a second text: [CLS] TEXT [SEP] "
                  "TEXT2 [SEP], its token type 1"),
       .filled = HELP_PAIRS)
OPTION(LAYERS, "layers", 0, INPUTS, 52,
       LIST(N_("LIST"), layers),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LAYERS,
       .page = PAGE_EDITS,
       .off_lesson = N_("--layers: stacks the Transformer block: it goes "
                        "with --variant block, or with --model DIR"),
       .help = N_("with --model, the layers shown: 0,3,5-7 (default\n"
                   "all); with --variant block, a count N: N blocks\n"
                   "stacked as nn.Sequential        (default one block)"))
OPTION(SHOW_HEADS, "show-heads", 0, INPUTS, 53,
       LIST(N_("LIST"), show_heads),
       .applies = APPLIES_CHECKPOINT, .page = PAGE_KEEPS,
       .off_lesson = N_("%s: goes with --model DIR"),
       .help = N_("with --model, the heads shown: 0,3,5-7  (default all)"))
OPTION(CSV_DELIMITER, "csv-delimiter", 0, INPUTS, 18,
       OWN_BY(N_("C"), csv_delimiter, OPT_DECIMAL_COMMA,
              {[false] = ',', [true] = ';'}),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("field separator of CSV read and written: one\n"
                   "character or 'tab'  (default ',', ';' with\n"
                   "--decimal-comma)"))
OPTION(DECIMAL_COMMA, "decimal-comma", 0, INPUTS, 19,
       FLAG(decimal_comma, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("numbers in CSV as 0,25               (default 0.25)"))
OPTION(BOM, "bom", 0, INPUTS, 20,
       FLAG(bom, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("start written CSV with a UTF-8 byte-order mark\n"
                   "                                      (default none)"))
OPTION(FORMAT, "format", 0, OUTPUT, 9,
       CHOICE(N_("FMT"), format, FORMAT_TEXT, format_choices),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("text, or csv for tidy CSV          (default text)"))
OPTION(TABLES, "tables", 0, OUTPUT, 8,
       OWN_VALUE(N_("LIST")), .one_list = true,
       .applies = APPLIES_ANY, .page = PAGE_MODEL,
       .help = N_("only these tables, comma-separated  (default all)"))
OPTION(PRECISION, "precision", 0, OUTPUT, 10,
       SIZE(N_("N"), precision, 4, 0, MAX_PRECISION),
       .applies = APPLIES_ANY, .page = PAGE_KEEPS,
       .help = N_("decimals in text, 0 to 12             (default 4)"))
OPTION(FULL, "full", 0, OUTPUT, 11,
       FLAG(full, false),
       .applies = APPLIES_ANY, .page = PAGE_KEEPS,
       .help = N_("print big tables whole      (default summarised)"))
OPTION(STYLE, "style", 0, OUTPUT, 12,
       CHOICE(N_("HOW"), torch_style, false, style_choices),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("text tables: table, or torch as print(tensor)\n"
                   "                                     (default table)"))
OPTION(CSV_DIR, "csv-dir", 0, OUTPUT, 13,
       NAME(N_("DIR"), csv_dir),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("also write one matrix CSV per table  (default none)"))
OPTION(HTML, "html", 0, OUTPUT, 33,
       NAME(N_("FILE"), html),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("also write an interactive page    (default none)"))
OPTION(COLOR, "color", 0, OUTPUT, 26,
       CHOICE(N_("WHEN"), color, COLOR_AUTO, color_choices),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("shade attention weights and scores: auto (on a\n"
                   "terminal, unless NO_COLOR is set), always, never\n"
                   "                                      (default auto)"))
OPTION(COLOR_SCALE, "color-scale", 0, OUTPUT, 32,
       CHOICE(N_("S"), color_scale, SCALE_TABLE, scale_choices),
       .applies = APPLIES_ANY, .page = PAGE_KEEPS,
       .help = N_("colours from each table's smallest to largest\n"
                   "value (table), each row's (row), or 0 to 1 for\n"
                   "weights (fixed), on the terminal, in --plot and\n"
                   "in --html                        (default table)"))
OPTION(WIDTH, "width", 0, OUTPUT, 30,
       SIZE(N_("N"), width, 0, 0, MAX_SCREEN_WIDTH),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("text columns; 0 for no limit (default: the\n"
                   "terminal's width, else $COLUMNS, else 80)"))
OPTION(LANG, "lang", 0, OUTPUT, 31,
       TEXT(N_("CODE"), lang),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("messages in en, pt_BR, es, zh_CN or zh_TW (default\n"
                   "from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)"))
OPTION(PLOT, "plot", 0, PICTURES, 34,
       OWN(N_("FILE"), plot, 0),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("also draw every head's attention weights, or the\n"
                   "--tables chosen, to FILE: .png, .svg or .pdf\n"
                   "                                     (default none)"))
OPTION(PLOT_SIZE, "plot-size", 0, PICTURES, 35,
       OWN_VALUE(N_("WxH")),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       GOES_WITH(N_("--plot-size: goes with --plot FILE"), OPT_PLOT),
       .help = N_("the picture's size: pixels for .png, points for\n"
                   ".svg and .pdf          (default: fit the panels)"))
OPTION(CMAP, "cmap", 0, PICTURES, 48,
       OWN_NAMED(N_("NAME"), plot_look.cmap, PLOT_CMAP, PLOT_CMAP_BOTH_SIGNS),
       .applies = APPLIES_ANY, .page = PAGE_KEEPS,
       GOES_WITH(N_("--cmap: goes with --plot FILE or --html FILE"),
                 OPT_PLOT, OPT_HTML),
       .help = N_("the colour map of --plot and --html, as matplotlib\n"
                   "names it: viridis, magma, Blues, RdBu, coolwarm,\n"
                   "... and NAME_r reversed  (default viridis; RdBu_r\n"
                   "for tables of both signs)"))
OPTION(NUMBERS, "numbers", 0, PICTURES, 49,
       CHOICE(N_("WHEN"), plot_look.numbers, true, number_choices),
       .applies = APPLIES_ANY, .page = PAGE_KEEPS,
       .help = N_("values in --plot's cells, with --precision\n"
                   "decimals (default 2): on, off  (default on)"))
OPTION(COLORBAR, "colorbar", 0, PICTURES, 50,
       CHOICE(N_("WHERE"), plot_look.bars, BARS_AUTO, bar_choices),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       GOES_WITH(N_("--colorbar: goes with --plot FILE"), OPT_PLOT),
       .help = N_("--plot's colour bars: panel (one per panel, on its\n"
                   "own scale), shared (one per table name), none\n"
                   "(default shared; panel with --color-scale row or\n"
                   "a single panel)"))
OPTION(LAYOUT, "layout", 0, TERMINAL, 37,
       CHOICE(N_("HOW"), layout, LAYOUT_AUTO, layout_choices),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("the same table of every head side by side (grid)\n"
                   "or one under another (stack) (default: grid on a\n"
                   "terminal where the heads fit, else stack)"))
OPTION(NO_PAGER, "no-pager", 0, TERMINAL, 38,
       FLAG(no_pager, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("never page; output longer than the screen goes\n"
                   "through $MHA_EXPLAIN_PAGER, else $PAGER, else\n"
                   "less -FRX                        (default paged)"))
OPTION(STEP, "step", 0, TERMINAL, 39,
       FLAG(step, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("one step per screen: space, Enter, Down or\n"
                   "PageDown scroll a tall step, then go on; b, Up or\n"
                   "PageUp back; q quits                (default off)"))
OPTION(EXPLAIN, "explain", 0, TEACHING, 24,
       FLAG(explain, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("plain sentences and shapes before each step, and\n"
                   "each module's parameter count         (default off)"))
OPTION(FOCUS, "focus", 0, TEACHING, 25,
       NAME(N_("WORD"), focus),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("one token across every head: Q, K, V, whom it\n"
                   "attends to, who attends to it, its context;\n"
                   "WORD@POSITION for a repeated word    (default none)"))
OPTION(TIE, "tie", 0, TEACHING, 21,
       FLAG(tie, false),
       .takes = TAKES_TIE, .page = PAGE_KEEPS,
       .off_lesson = N_("--tie: ties the fused module to the wrapper's "
                        "heads; add fused to --variant"),
       .off_checkpoint = N_("%s: does not go with --model (it ties the "
                            "lessons' wrapper and fused modules; a "
                            "checkpoint has neither)"),
       .help = N_("fused W_query/W_key/W_value = the wrapper's heads\n"
                   "stacked, so both compute the same context (off)"))
OPTION(CHECK, "check", 0, TEACHING, 22,
       FLAG(check, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("verify that weight rows sum to 1, masked weights\n"
                   "are 0 and, with --tie, wrapper equals fused (off)"))
OPTION(AVERAGE, "average", 0, TEACHING, 23,
       FLAG(average, false),
       .takes = TAKES_AVERAGE, .page = PAGE_KEEPS,
       .off_lesson = N_("--average: averages the heads of the wrapper, "
                        "fused or block; --variant single has one head"),
       .off_checkpoint = N_("%s: does not go with --model (a checkpoint's "
                            "run does not average its heads; attn_entropy "
                            "sums up each head)"),
       .makes = TABLE_BIT(ATTN_WEIGHTS_AVG),
       .help = N_("add attn_weights_avg, the mean over heads   (off)"))
OPTION(ABLATE, "ablate", 0, TEACHING, 88,
       TEXT(N_("HEADS"), ablate), .one_list = true,
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .makes = ABLATION_TABLES | ABLATION_MAP_TABLES | GENERATE_CLEAN_TABLES,
       .help = N_("switch heads off: L.H[,L.H...] (the run's tables\n"
                   "are the ablated model's; with --model or a trained\n"
                   "--variant block also ablation_effect and\n"
                   "ablation_loss); or all-heads: each head alone, the\n"
                   "loss change in ablation_map          (default none)"))
OPTION(ABLATE_MODE, "ablate-mode", 0, TEACHING, 89,
       CHOICE(N_("HOW"), ablate_mode, HOOK_ZERO, ablate_mode_choices),
       .applies = APPLIES_ANY, .page = PAGE_EDITS,
       .help = N_("an ablated head's output z: zero, or mean (each\n"
                   "column its mean over the positions, or with --model\n"
                   "over --corpus's texts)             (default zero)"))
OPTION(METRIC, "metric", 0, TEACHING, 82,
       CHOICE(N_("NAME"), metric, METRIC_LOSS, metric_choices),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_MAP,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --ablate all-heads, what ablation_map measures:\n"
                   "loss (the mean loss), logit-diff (--answer's logit\n"
                   "minus --wrong's at the last token) or prob\n"
                   "(--answer's probability there)  (default loss)"))
OPTION(PATCH, "patch", 0, TEACHING, 90,
       FLAG(patch, false),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_RUNS,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .makes = PATCH_TABLES,
       .help = N_("with --model or a trained --variant block,\n"
                   "activation patching: each head's output\n"
                   "(patch_heads) and the residual stream at each\n"
                   "layer and position (patch_resid) put from the\n"
                   "--clean run into the --corrupt one; 0 corrupted, 1\n"
                   "clean, by --answer's logit minus --wrong's (off)"))
OPTION(CLEAN, "clean", 0, TEACHING, 91,
       TEXT(N_("TEXT"), patch_clean),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_TEXT,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --patch, the clean text (the run's tables are\n"
                   "its own)                             (default none)"))
OPTION(CORRUPT, "corrupt", 0, TEACHING, 92,
       TEXT(N_("TEXT"), patch_corrupt),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_RUNS,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --patch, the corrupted text, as many tokens as\n"
                   "--clean                              (default none)"))
OPTION(ANSWER, "answer", 0, TEACHING, 93,
       TEXT(N_("TOKEN"), patch_answer),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_MAP,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --patch, the clean text's next token, one\n"
                   "token such as ' Mary'; with --metric logit-diff or\n"
                   "prob, the token measured             (default none)"))
OPTION(WRONG, "wrong", 0, TEACHING, 94,
       TEXT(N_("TOKEN"), patch_wrong),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_MAP,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --patch or --metric logit-diff, the token it\n"
                   "is measured against, one token such as ' John'\n"
                   "                                     (default none)"))
OPTION(HEAD_SCORES, "head-scores", 0, TEACHING, 95,
       FLAG(head_scores, false),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_RUNS,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .makes = HEAD_SCORE_TABLES,
       .help = N_("with --model or a trained --variant block, each\n"
                   "head's previous-token, duplicate-token and\n"
                   "induction score, as TransformerLens's head\n"
                   "detector (head_scores)                      (off)"))
OPTION(REPEAT_RANDOM, "repeat-random", 0, TEACHING, 96,
       SIZE(N_("N"), repeat_random, 0, 1, 512),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_NONE,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .help = N_("with --head-scores, the text is N random tokens of\n"
                   "the vocabulary drawn from --seed, then the same N\n"
                   "again (no sentence)                 (default none)"))
OPTION(LOGIT_LENS, "logit-lens", 0, TEACHING, 100,
       FLAG(logit_lens, false),
       .applies = APPLIES_CHECKPOINT, .takes = TAKES_LM_HEAD,
       .page = PAGE_FAMILIES,
       .off_lesson = N_("%s: goes with --model DIR or a trained "
                        "--variant block (a model with an lm_head)"),
       .makes = TABLE_BIT(LOGIT_LENS) | TABLE_BIT(LOGIT_LENS_GRID),
       .help = N_("with --model or a trained --variant block, the\n"
                   "final norm (if the model has one) and the lm_head\n"
                   "over the residual stream after each layer: each\n"
                   "layer's likeliest next tokens at each position\n"
                   "(logit_lens)                                (off)"))
OPTION(THREADS, "threads", 0, SPEED, 36,
       SIZE(N_("N"), threads, 0, 1, MAX_THREADS),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("threads sharing the work, 1 to 256 (default: the\n"
                   "processors this process may use)"))
OPTION(HELP, "help", 'h', GENERAL, 41,
       FLAG(show_help, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("show this help and exit"))
OPTION(VERSION, "version", 'V', GENERAL, 42,
       FLAG(show_version, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("show the version and exit"))
OPTION(MAN, "man", 0, GENERAL, 97,
       FLAG(show_man, false),
       .applies = APPLIES_ANY, .page = PAGE_NONE,
       .help = N_("write the options as a man page in the --lang\n"
                   "language (roff) and exit"))
/* clang-format on */
