import type { LocalizationVars, LocalizedFile, LocalizedSymbol } from "./types.js";

/**
 * The ranking as text for a prompt (`{{ localization.text }}`): the files with their strongest
 * reasons, then the definitions to open first. Empty when there is nothing to show.
 */
export function localizationText(files: LocalizedFile[], symbols: LocalizedSymbol[]): string {
  if (files.length === 0) return "";
  const lines = files.map(
    (f, i) => `${i + 1}. ${f.path} (${f.why.slice(0, 2).join("; ") || "ranked by text similarity"})`,
  );
  if (symbols.length > 0) {
    lines.push("Definitions to look at first:");
    for (const s of symbols) lines.push(`- ${s.path}:${s.line} ${s.name}`);
  }
  return lines.join("\n");
}

/** The templates' `localization` for a ranking that was made (`error` when it failed). */
export function localizationVars(
  files: LocalizedFile[],
  symbols: LocalizedSymbol[],
  error: string | undefined,
): LocalizationVars {
  return { enabled: true, text: localizationText(files, symbols), files, symbols, error: error ?? "" };
}
