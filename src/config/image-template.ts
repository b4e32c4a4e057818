// An image template's own rules, which the config schema checks (environment.image_template);
// dataset/images.ts fills templates in for instances.

/**
 * The fields of an image template: `{id}` the instance id lowercased with `__` written `_1776_`
 * (the harness's Docker Hub form), `{instance_id}` the id lowercased (the harness's local builds,
 * `sweb.eval.x86_64.django__django-11099`), `{id_s}` the id lowercased with `__` written `_s_`
 * (SWE-Gym's images), `{tag}` the row's own image tag (SWE-bench Pro's `dockerhub_tag`), `{arch}`
 * `x86_64` or `arm64` from the platform.
 */
export const IMAGE_TEMPLATE_FIELDS = ["id", "instance_id", "id_s", "tag", "arch"] as const;

/** Why `template` is not a usable image template, or undefined when it is. */
export function imageTemplateProblem(template: string): string | undefined {
  const unknown = [...template.matchAll(/\{([^{}]*)\}/g)]
    .map((m) => m[1])
    .filter((f) => !(IMAGE_TEMPLATE_FIELDS as readonly string[]).includes(f));
  if (unknown.length > 0) {
    return `unknown field {${unknown[0]}}; the fields are ${IMAGE_TEMPLATE_FIELDS.map((f) => `{${f}}`).join(", ")}`;
  }
  if (/[{}]/.test(template.replace(/\{[a-z_]+\}/g, ""))) return "an unmatched { or }";
  if (!["{id}", "{instance_id}", "{id_s}", "{tag}"].some((f) => template.includes(f))) {
    return "no {id}, {instance_id}, {id_s} or {tag}: every instance would get the same image (use environment.image for that)";
  }
  return undefined;
}
