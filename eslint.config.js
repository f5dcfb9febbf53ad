import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "docs/dist/**",
      "node_modules/**",
      "coverage/**",
      "schema/*/generated/**",
      "src/schema/generated/**",
      ".conformance/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Every error class below McpTasksError names itself once, and that name is its brand (src/protocol/errors.ts):
    // a class without one would not be recognised by `instanceof` across copies of the library.
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "ClassDeclaration[superClass.name=/.Error$/]:not(:has(PropertyDefinition[static=true][key.name='errorName']))",
          message:
            'An error class declares `static override readonly errorName: string = "<its name>"` (its name and its brand).',
        },
      ],
    },
  },
);
