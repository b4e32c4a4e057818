/**
 * Small repositories in each language beyond Python, written by the tests (languages.unit.test.ts):
 * a file that defines what an issue names, files that only use it (and say its name more often),
 * a test, and imports between them.
 */

export interface LanguageRepo {
  files: Record<string, string>;
  /** The file whose outline and imports the test checks. */
  main: string;
  /** An issue naming a definition of `main`. */
  issue: string;
}

export const GO_REPO: LanguageRepo = {
  main: "store/store.go",
  issue:
    "Store.Lookup reports a missing item for items that exist\n\nAfter `Lookup` is called for an id that was added, it returns ErrMissing.",
  files: {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "store/store.go": `package store

import (
	"errors"

	"example.com/shop/model"
)

// ErrMissing is returned when an item is not in the store.
var ErrMissing = errors.New("missing item")

const (
	DefaultLimit = 10
	maxLimit     = 100
)

type Store struct {
	items map[string]model.Item
}

func New() *Store {
	return &Store{items: map[string]model.Item{}}
}

func (s *Store) Lookup(id string) (model.Item, error) {
	item, ok := s.items[id]
	if !ok {
		return model.Item{}, ErrMissing
	}
	return item, nil
}
`,
    "model/item.go":
      "package model\n\n// Item is a thing for sale.\ntype Item struct {\n\tID    string\n\tPrice int\n}\n",
    "model/item_test.go":
      'package model\n\nimport "testing"\n\nfunc TestItem(t *testing.T) {\n\t_ = Item{ID: "a"}\n}\n',
    "cmd/shop/main.go": `package main

import (
	"fmt"

	"example.com/shop/store"
)

// main looks items up: Lookup, Lookup again, and Lookup once more for a missing item.
func main() {
	s := store.New()
	for _, id := range []string{"a", "b", "c"} {
		item, err := s.Lookup(id)
		fmt.Println("lookup", id, item, err, "missing item lookup")
	}
}
`,
  },
};

export const JAVA_REPO: LanguageRepo = {
  main: "src/main/java/com/acme/cart/Cart.java",
  issue:
    "`Cart.total()` ignores the discount of a line\n\nThe total of a cart with a discounted line is too high.",
  files: {
    "src/main/java/com/acme/cart/Cart.java": `package com.acme.cart;

import com.acme.cart.model.Line;
import java.util.ArrayList;
import java.util.List;

public class Cart {
    private final List<Line> lines = new ArrayList<>();

    public Cart() {
    }

    public void addLine(Line line) {
        lines.add(line);
    }

    public int total() {
        int sum = 0;
        for (Line l : lines) {
            sum += l.amount();
        }
        return sum;
    }

    enum State {
        OPEN,
        PAID
    }
}
`,
    "src/main/java/com/acme/cart/model/Line.java": `package com.acme.cart.model;

public class Line {
    private final int amount;
    private final int discount;

    public Line(int amount, int discount) {
        this.amount = amount;
        this.discount = discount;
    }

    public int amount() {
        return amount;
    }
}
`,
    "src/main/java/com/acme/cart/Checkout.java": `package com.acme.cart;

/** Checkout prints the total: the cart total, the total with tax, the total of a discount line. */
public class Checkout {
    public String receipt(Cart cart) {
        return "total " + cart.total() + " total with discount line " + cart.total();
    }
}
`,
    "src/test/java/com/acme/cart/CartTest.java": `package com.acme.cart;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void totalOfEmptyCart() {
        new Cart().total();
    }
}
`,
  },
};

export const JS_REPO: LanguageRepo = {
  main: "src/parser.js",
  issue: "parseTerm drops a unary minus\n\n```js\nparseExpression('-1 + 2') // 3, expected 1\n```",
  files: {
    "src/parser.js": `import { tokenize } from "./lexer.js";
const assert = require("./assert");

export function parseExpression(source) {
  return new Parser(tokenize(source)).parseSum();
}

export class Parser {
  constructor(tokens) {
    this.tokens = tokens;
  }

  parseSum() {
    let left = this.parseTerm();
    return left;
  }

  parseTerm() {
    const read = () => this.tokens.shift();
    return Number(read());
  }
}

export const VERSION = "1.0";
`,
    "src/lexer.js": "export function tokenize(source) {\n  return source.split(/\\s+/);\n}\n",
    "src/assert.js": "module.exports = function assert(ok) {\n  if (!ok) throw new Error('assertion');\n};\n",
    "src/index.js": `export { parseExpression } from "./parser.js";
// parseExpression parses an expression: a sum of terms, each term with an optional unary minus.
// The term, the minus, the unary minus of a term: see parseExpression.
`,
    "test/parser.test.js":
      'import { parseExpression } from "../src/parser.js";\n\ntest("sum", () => {\n  expect(parseExpression("1 + 2")).toBe(3);\n});\n',
  },
};

export const TS_REPO: LanguageRepo = {
  main: "src/cache/lru.ts",
  issue:
    "`evictOldest` evicts the newest entry\n\nWhen the cache is full, the entry added last is the one dropped.",
  files: {
    "src/cache/lru.ts": `import type { Options } from "../options";

export interface CacheEntry<V> {
  value: V;
  added: number;
}

export type Key = string | number;

export class LruCache<V> {
  private readonly map = new Map<Key, CacheEntry<V>>();

  constructor(private readonly options: Options) {}

  get(key: Key): V | undefined {
    return this.map.get(key)?.value;
  }

  evictOldest(): void {
    const last = [...this.map.keys()].pop();
    if (last !== undefined) this.map.delete(last);
  }
}

export function sizeOf(cache: LruCache<unknown>): number {
  return 0;
}
`,
    "src/options.ts": "export interface Options {\n  max: number;\n}\n",
    "src/index.ts":
      'export * from "./cache/lru";\n// the cache: full cache, entry added, entry dropped, the newest entry and the oldest entry of the cache\n',
    "src/ui/view.tsx":
      'import { LruCache } from "../cache/lru.js";\n\nexport function CacheView(props: { cache: LruCache<string> }) {\n  return <div>{String(props.cache)}</div>;\n}\n',
    "src/cache/lru.test.ts":
      'import { LruCache } from "./lru";\n\nit("evicts", () => {\n  new LruCache({ max: 1 });\n});\n',
  },
};

export const PHP_REPO: LanguageRepo = {
  main: "src/Http/Controller.php",
  issue:
    "`User::fullName()` puts the last name first\n\nThe profile page shows the user's full name backwards.",
  files: {
    "src/Http/Controller.php": `<?php

namespace App\\Http;

use App\\Models\\User;
use App\\Support\\{Str, Arr as A};

require_once __DIR__ . '/helpers.php';

const PAGE_SIZE = 20;

class Controller
{
    public function show(int $id): string
    {
        $user = new User($id);
        return "profile page of the user " . $user->fullName() . " full name " . $user->fullName();
    }
}
`,
    "src/Http/helpers.php": "<?php\n\nfunction page_title(string $name): string\n{\n    return $name;\n}\n",
    "src/Models/User.php": `<?php

namespace App\\Models;

class User
{
    private string $first = "";
    private string $last = "";

    public function fullName(): string
    {
        return $this->last . " " . $this->first;
    }
}

interface HasName
{
    public function fullName(): string;
}

trait Named
{
}
`,
    "src/Support/Str.php": "<?php\n\nnamespace App\\Support;\n\nclass Str\n{\n}\n",
    "tests/UserTest.php":
      "<?php\n\nuse App\\Models\\User;\n\nclass UserTest\n{\n    public function testFullName(): void\n    {\n        (new User())->fullName();\n    }\n}\n",
  },
};

export const RUBY_REPO: LanguageRepo = {
  main: "lib/inventory/shelf.rb",
  issue: "`restock` adds the count twice\n\nAfter restocking a shelf with 3 items it holds 6.",
  files: {
    "lib/inventory.rb":
      'require "inventory/shelf"\nrequire "json"\n\n# Inventory: shelves to restock, counts, items. Restock a shelf, count the items again.\nmodule Inventory\nend\n',
    "lib/inventory/shelf.rb": `require_relative "item"

module Inventory
  class Shelf
    CAPACITY = 10

    def initialize
      @count = 0
    end

    def restock!(count)
      @count += count
      @count += count
    end

    def empty?
      @count.zero?
    end

    def self.build
      new
    end
  end
end
`,
    "lib/inventory/item.rb": "module Inventory\n  class Item\n  end\nend\n",
    "spec/shelf_spec.rb":
      'require "inventory/shelf"\n\nRSpec.describe Inventory::Shelf do\n  it "restocks" do\n    Inventory::Shelf.new.restock!(3)\n  end\nend\n',
  },
};

export const RUST_REPO: LanguageRepo = {
  main: "src/lexer.rs",
  issue: "`Lexer::next_token` skips the last token\n\nThe final token of the input is never returned.",
  files: {
    "src/lib.rs": "pub mod lexer;\nmod util;\n\npub use crate::lexer::Lexer;\n",
    "src/lexer.rs": `use crate::util::{is_ident, Span as S};
use std::collections::HashMap;

pub struct Lexer {
    input: Vec<char>,
    pos: usize,
}

pub enum Token {
    Ident(String),
    End,
}

pub trait Source {
    fn peek(&self) -> Option<char>;
}

impl Lexer {
    pub fn new(input: &str) -> Self {
        Lexer { input: input.chars().collect(), pos: 0 }
    }

    pub fn next_token(&mut self) -> Option<Token> {
        if self.pos + 1 >= self.input.len() {
            return None;
        }
        self.pos += 1;
        Some(Token::End)
    }
}

const MAX_TOKENS: usize = 1024;
`,
    "src/util.rs": "pub struct Span;\n\npub fn is_ident(c: char) -> bool {\n    c.is_alphanumeric()\n}\n",
    "src/main.rs":
      'use demo::Lexer;\n\n// every token, the last token, the final token of the input: next token, next token\nfn main() {\n    let mut l = Lexer::new("a b");\n    while let Some(_t) = l.next_token() {}\n}\n',
  },
};

export const C_REPO: LanguageRepo = {
  main: "src/main.c",
  issue: "strbuf_grow overflows when extra is huge\n\n```c\nstrbuf_grow(&sb, SIZE_MAX);\n```",
  files: {
    "src/strbuf.h":
      "#ifndef STRBUF_H\n#define STRBUF_H\n#include <stddef.h>\n\nstruct strbuf {\n  char *buf;\n  size_t len, alloc;\n};\n\nint strbuf_grow(struct strbuf *sb, size_t extra);\n\n#endif\n",
    "src/strbuf.c": `#include "strbuf.h"
#include <stdlib.h>

static size_t grown = 0;

int
strbuf_grow(struct strbuf *sb, size_t extra)
{
  sb->alloc = sb->len + extra;
  sb->buf = realloc(sb->buf, sb->alloc);
  return sb->buf ? 0 : -1;
}

static char *strbuf_detach(struct strbuf *sb)
{
  return sb->buf;
}
`,
    "src/main.c": `#include "strbuf.h"
#include <util/log.h>
#include <stdio.h>

/* grow the buffer: strbuf_grow with a huge extra, strbuf_grow again, overflows when extra is huge */
int main(void)
{
  struct strbuf sb = {0};
  strbuf_grow(&sb, 10);
  if (strbuf_grow(&sb, 20) < 0)
    log_error("overflows");
  return 0;
}
`,
    "include/util/log.h": "#define LOG_LEVEL 2\nvoid log_error(const char *msg);\n",
    "src/log.c":
      '#include <util/log.h>\n#include <stdio.h>\n\nvoid log_error(const char *msg)\n{\n  fprintf(stderr, "%s\\n", msg);\n}\n',
  },
};

export const CPP_REPO: LanguageRepo = {
  main: "src/buffer.cc",
  issue: "`Buffer::grow` loses the data already written\n\nAfter grow the first bytes are garbage.",
  files: {
    "include/fmt/buffer.h": `#pragma once
#include <cstddef>

namespace fmt {
class Buffer {
 public:
  void grow(size_t n);
  size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};
}  // namespace fmt
`,
    "src/buffer.cc": `#include "fmt/buffer.h"
#include <cstring>

namespace fmt {
void Buffer::grow(size_t n) {
  char* fresh = new char[n];
  // the data already written is not copied into the fresh bytes
  delete[] data_;
  data_ = fresh;
}

template <typename T>
T clamp(T v) {
  return v;
}
}  // namespace fmt
`,
    "src/format.cc": `#include "fmt/buffer.h"

// format: grow the buffer, grow it again, write data, written data, the first bytes
void format_all(fmt::Buffer& buf) {
  buf.grow(16);
  buf.grow(32);
}
`,
  },
};
