/**
 * What the official harness (v4.1.0, `swebench/harness/constants/{c,go,java,javascript,php,ruby,rust}.py`,
 * tag v4.1.0) runs at evaluation time for the repositories beyond Python (SWE-bench Multilingual and
 * the JavaScript repositories of Multimodal): per repository and version (these datasets' `version`
 * is mostly the pull request number) the test commands and the build commands run after the test
 * patch, and the log parser the harness's v5 registry (`MAP_REPO_TO_PARSER_*`) names for the
 * repository. Facts only, transcribed from those tables.
 */

/** The evaluation-time part of one repo/version spec of a non-Python repository. */
export interface CommonEvalSpec {
  /** Test commands, run in order between the markers. */
  test_cmd: string[];
  /** Build commands run after the test patch is applied, before the markers. */
  build?: string[];
}

interface LanguageRepo {
  language: "c" | "go" | "java" | "javascript" | "php" | "ruby" | "rust";
  log_parser: string;
  versions: Readonly<Record<string, CommonEvalSpec>>;
}

/** The same spec for each of `versions` (the harness's `{k: {...} for k in [...]}` entries). */
function forVersions(versions: string[], spec: CommonEvalSpec): Record<string, CommonEvalSpec> {
  return Object.fromEntries(versions.map((v) => [v, spec]));
}

export const MULTILINGUAL_SPECS: Readonly<Record<string, LanguageRepo>> = {
  "apache/druid": {
    language: "java",
    log_parser: "maven",
    versions: {
      "13704": {
        test_cmd: [
          "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testPow",
          "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testDiv",
          "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testQuotient",
        ],
      },
      "14092": {
        test_cmd: [
          "mvnd test -B -T 1C -pl server -Dtest=org.apache.druid.discovery.DruidLeaderClientTest#test503ResponseFromServerAndCacheRefresh",
          "mvnd test -B -T 1C -pl server -Dtest=org.apache.druid.discovery.DruidLeaderClientTest#testServerFailureAndRedirect",
        ],
      },
      "14136": {
        test_cmd: [
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval2",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval3",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval4",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapFirstContainsSecond",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirst",
        ],
      },
      "15402": {
        test_cmd: [
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testCacheStrategy",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testResultLevelCacheKeyWithSubTotalsSpec",
          "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testMultiColumnCacheStrategy",
        ],
      },
      "16875": {
        test_cmd: [
          "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorWithPeon",
          "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorWithNulls",
          "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorIndexer",
        ],
      },
    },
  },
  "apache/lucene": {
    language: "java",
    log_parser: "gradle_custom",
    versions: {
      "11760": {
        test_cmd: ["./gradlew test --tests org.apache.lucene.queries.intervals.TestIntervalBuilder"],
      },
      "12022": { test_cmd: ["./gradlew test --tests org.apache.lucene.document.TestLatLonShape"] },
      "12196": {
        test_cmd: ["./gradlew test --tests org.apache.lucene.queryparser.classic.TestMultiFieldQueryParser"],
      },
      "12212": { test_cmd: ["./gradlew test --tests org.apache.lucene.facet.TestDrillSideways"] },
      "12626": { test_cmd: ["./gradlew test --tests org.apache.lucene.index.TestIndexWriter"] },
      "13170": {
        test_cmd: [
          "./gradlew test --tests org.apache.lucene.analysis.opennlp.TestOpenNLPSentenceBreakIterator",
        ],
      },
      "13301": {
        test_cmd: [
          "./gradlew test --tests TestXYPoint.testEqualsAndHashCode -Dtests.seed=3ABEFE4D876DD310 -Dtests.nightly=true -Dtests.locale=es-419 -Dtests.timezone=Asia/Ulaanbaatar -Dtests.asserts=true -Dtests.file.encoding=UTF-8",
        ],
      },
      "13494": { test_cmd: ["./gradlew test --tests org.apache.lucene.facet.TestStringValueFacetCounts"] },
      "13704": { test_cmd: ["./gradlew test --tests org.apache.lucene.search.TestLatLonDocValuesQueries"] },
    },
  },
  "astral-sh/ruff": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "15309": { test_cmd: ["cargo test --package ruff_linter 'f52'"] },
      "15330": { test_cmd: ["cargo test --package ruff_linter --lib rules::eradicate"] },
      "15356": { test_cmd: ["cargo test --package ruff_linter --lib rules::pycodestyle"] },
      "15394": { test_cmd: ["cargo test --package ruff_linter --lib rules::flake8_pie"] },
      "15443": { test_cmd: ["cargo test --package ruff_linter --lib rules::flake8_bandit"] },
      "15543": { test_cmd: ["cargo test --package ruff_linter --lib rules::pyupgrade"] },
      "15626": { test_cmd: ["cargo test --package ruff_linter --lib rules::flake8_simplify::tests"] },
    },
  },
  "Automattic/wp-calypso": {
    language: "javascript",
    log_parser: "calypso",
    versions: {
      ...forVersions(
        [
          "0.8",
          "4.2.3",
          "4.3.0",
          "6.1.0",
          "6.7.0",
          "6.9.0",
          "6.9.1",
          "6.9.4",
          "8.9.1",
          "8.9.3",
          "8.9.4",
          "10.4.1",
          "10.5.0",
          "10.6.0",
          "10.9.0",
          "5.10.1",
          "5.11.1",
          "6.10.0",
          "6.10.2",
          "6.10.3",
          "6.11.1",
          "6.11.2",
          "6.11.5",
          "8.11.0",
          "8.11.2",
          "10.10.0",
          "10.12.0",
          "10.13.0",
          "10.14.0",
          "10.15.2",
          "10.16.3",
        ],
        { test_cmd: ["npm run test-client"] },
      ),
    },
  },
  "axios/axios": {
    language: "javascript",
    log_parser: "tap",
    versions: {
      "4731": { test_cmd: ["npx mocha -R tap test/unit/adapters/http.js -g 'body length'"] },
      "4738": { test_cmd: ["timeout 10s npx mocha -R tap test/unit/adapters/http.js -g 'timeout'"] },
      "5085": { test_cmd: ["npx mocha -R tap test/unit/regression/bugs.js"] },
      "5316": {
        test_cmd: ["npx mocha test/unit/adapters/http.js -R tap -g 'FormData'"],
        build: ["npm install"],
      },
      "5892": { test_cmd: ["npx mocha test/unit/adapters/http.js -R tap -g 'compression'"] },
      "6539": { test_cmd: ["npx mocha -R tap test/unit/regression/SNYK-JS-AXIOS-7361793.js"] },
    },
  },
  "babel/babel": {
    language: "javascript",
    log_parser: "jest",
    versions: {
      "13928": { test_cmd: ['yarn jest babel-parser -t "arrow" --verbose'], build: ["make build"] },
      "14532": { test_cmd: ["yarn jest babel-generator --verbose"], build: ["make build"] },
      "15445": {
        test_cmd: ['yarn jest packages/babel-generator/test/index.js -t "generation " --verbose'],
        build: ["make build"],
      },
      "15649": {
        test_cmd: ["yarn jest packages/babel-traverse/test/scope.js --verbose"],
        build: ["make build"],
      },
      "16130": { test_cmd: ["yarn jest babel-helpers --verbose"], build: ["make build"] },
    },
  },
  "briannesbitt/carbon": {
    language: "php",
    log_parser: "phpunit",
    versions: {
      "2665": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Carbon/RoundTest.php"] },
      "2752": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonImmutable/IsTest.php"] },
      "2762": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/RoundingTest.php"],
      },
      "2813": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Factory/FactoryTest.php"],
        build: ["composer update", "composer install"],
      },
      "2981": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/TotalTest.php"],
      },
      "3005": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/ConstructTest.php"],
      },
      "3041": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonPeriod/CreateTest.php"] },
      "3073": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/TotalTest.php"],
      },
      "3098": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/ConstructTest.php"],
      },
      "3103": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/CarbonImmutable/SettersTest.php"],
      },
    },
  },
  "burntsushi/ripgrep": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "2209": {
        test_cmd: [
          "RUSTFLAGS=-Awarnings cargo test --package ripgrep --test integration -- regression::r2208 --exact",
        ],
      },
      "2576": {
        test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package ripgrep --test integration -- regression"],
      },
    },
  },
  "caddyserver/caddy": {
    language: "go",
    log_parser: "gotest",
    versions: {
      "4774": { test_cmd: ['go test -v ./caddytest/integration -run "TestCaddyfileAdapt*"'] },
      "4943": { test_cmd: ["go test -v ./modules/logging"] },
      "5404": { test_cmd: ["go test -v ./caddyconfig/caddyfile"] },
      "5626": { test_cmd: ['go test -v ./caddyconfig/httpcaddyfile -run "Test.*Import"'] },
      "5761": { test_cmd: ['go test -v ./caddyconfig/caddyfile -run "TestLexer.*"'] },
      "5870": { test_cmd: ['go test -v . -run "TestUnsyncedConfigAccess"'] },
      "5995": { test_cmd: ['go test -v ./caddytest/integration -run "^TestUriReplace"'] },
      "6051": { test_cmd: ["go test -v ./caddyconfig/caddyfile"] },
      "6115": { test_cmd: ["go test -v ./modules/caddyhttp/reverseproxy"] },
      "6288": { test_cmd: ['go test -v ./caddytest/integration -run "TestCaddyfileAdapt*"'] },
      "6345": { test_cmd: ["go test -v ./caddytest/integration"] },
      "6350": { test_cmd: ['go test -v ./caddytest/integration -run "TestCaddyfileAdapt*"'] },
      "6370": { test_cmd: ["go test -v ./cmd"] },
      "6411": { test_cmd: ['go test -v . -run "TestReplacerNew*"'] },
    },
  },
  "chartjs/Chart.js": {
    language: "javascript",
    log_parser: "chart_js",
    versions: {
      "2.0": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.1": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.2": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.3": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.4": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.5": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.6": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.7": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.8": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "2.9": {
        test_cmd: [
          "npm install",
          "gulp build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
        ],
      },
      "3.0": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.1": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.2": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.3": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.4": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.5": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.6": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.7": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "3.8": {
        test_cmd: [
          "npm install",
          "npm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "4.0": {
        test_cmd: [
          "pnpm install",
          "pnpm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "4.1": {
        test_cmd: [
          "pnpm install",
          "pnpm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "4.2": {
        test_cmd: [
          "pnpm install",
          "pnpm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "4.3": {
        test_cmd: [
          "pnpm install",
          "pnpm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
        ],
      },
      "4.4": {
        test_cmd: [
          "pnpm install",
          "pnpm run build",
          'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
        ],
      },
    },
  },
  "diegomura/react-pdf": {
    language: "javascript",
    log_parser: "react_pdf",
    versions: {
      ...forVersions(["1.0", "1.1", "1.2"], { test_cmd: ["./node_modules/.bin/jest --no-color"] }),
      "2.0": { test_cmd: ['NODE_OPTIONS="--experimental-vm-modules" ./node_modules/.bin/jest --no-color'] },
    },
  },
  "facebook/docusaurus": {
    language: "javascript",
    log_parser: "jest",
    versions: {
      "8927": {
        test_cmd: ["yarn test packages/docusaurus-utils/src/__tests__/markdownLinks.test.ts --verbose"],
      },
      "9183": {
        test_cmd: ["yarn test packages/docusaurus-theme-classic/src/__tests__/options.test.ts --verbose"],
      },
      "9897": {
        test_cmd: ["yarn test packages/docusaurus-utils/src/__tests__/markdownUtils.test.ts --verbose"],
      },
      "10130": {
        test_cmd: ["yarn test packages/docusaurus/src/server/__tests__/brokenLinks.test.ts --verbose"],
      },
      "10309": {
        test_cmd: [
          "yarn test packages/docusaurus-plugin-content-docs/src/client/__tests__/docsClientUtils.test.ts --verbose",
        ],
      },
    },
  },
  "faker-ruby/faker": {
    language: "ruby",
    log_parser: "ruby_unit",
    versions: {
      "2705": { test_cmd: ["bundle exec ruby test/faker/default/test_faker_internet.rb -v -n '/password/'"] },
      "2970": { test_cmd: ["bundle exec ruby test/faker/default/test_faker_internet.rb -v -n '/email/'"] },
    },
  },
  "fastlane/fastlane": {
    language: "ruby",
    log_parser: "rspec_transformed_json",
    versions: {
      "19207": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/zip_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "19304": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/zip_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "19765": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/download_dsyms_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "20642": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./frameit/spec/device_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "20958": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/import_from_git_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "20975": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./match/spec/storage/s3_storage_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
      "21857": {
        test_cmd: [
          "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/lane_manager_base_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
        ],
      },
    },
  },
  "fluent/fluentd": {
    language: "ruby",
    log_parser: "ruby_unit",
    versions: {
      "3328": {
        test_cmd: [
          "bundle exec ruby test/plugin/test_in_tail.rb -v -n '/test_ENOENT_error_after_setup_watcher/'",
        ],
      },
      "3466": {
        test_cmd: ["bundle exec ruby test/plugin/test_in_tail.rb -v -n '/test_should_replace_target_info/'"],
      },
      "3608": {
        test_cmd: [
          "bundle exec ruby test/plugin/test_output_as_buffered_retries.rb -v -n '/retry_max_times/'",
        ],
      },
      "3616": { test_cmd: ["bundle exec ruby test/plugin/test_in_http.rb -v -n '/test_application/'"] },
      "3631": { test_cmd: ["bundle exec ruby test/test_event_router.rb -v -n '/handle_emits_error/'"] },
      "3640": {
        test_cmd: ["bundle exec ruby test/plugin_helper/test_retry_state.rb -v -n '/exponential backoff/'"],
      },
      "3641": { test_cmd: ["bundle exec ruby test/test_supervisor.rb -v"] },
      "3917": { test_cmd: ["bundle exec ruby test/test_config.rb -v"] },
      "4030": { test_cmd: ["bundle exec ruby test/plugin/out_forward/test_ack_handler.rb -v"] },
      "4311": { test_cmd: ["bundle exec ruby test/config/test_system_config.rb -v -n '/rotate_age/'"] },
      "4598": {
        test_cmd: ["bundle exec ruby test/plugin_helper/test_http_server_helper.rb -v -n '/mount/'"],
      },
      "4655": { test_cmd: ["bundle exec ruby test/plugin/test_in_http.rb -v -n '/test_add/'"] },
    },
  },
  "fmtlib/fmt": {
    language: "c",
    log_parser: "googletest",
    versions: {
      "1683": {
        test_cmd: ["ctest --test-dir build -V -R printf-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target printf-test",
        ],
      },
      "2310": {
        test_cmd: ["ctest --test-dir build -V -R format-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target format-test",
        ],
      },
      "2317": {
        test_cmd: ["ctest --test-dir build -V -R format-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target format-test",
        ],
      },
      "2457": {
        test_cmd: ["ctest --test-dir build -V -R ranges-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target ranges-test",
        ],
      },
      "3158": {
        test_cmd: ["ctest --test-dir build -V -R ranges-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target ranges-test",
        ],
      },
      "3248": {
        test_cmd: ["ctest --test-dir build -V -R format-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target format-test",
        ],
      },
      "3272": {
        test_cmd: ["ctest --test-dir build -V -R xchar-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target xchar-test",
        ],
      },
      "3729": {
        test_cmd: ["ctest --test-dir build -V -R std-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target std-test",
        ],
      },
      "3750": {
        test_cmd: ["ctest --test-dir build -V -R format-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target format-test",
        ],
      },
      "3863": {
        test_cmd: ["ctest --test-dir build -V -R ranges-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target ranges-test",
        ],
      },
      "3901": {
        test_cmd: ["ctest --test-dir build -V -R format-test"],
        build: [
          "mkdir -p build",
          "cmake -B build -S .",
          "cmake --build build --parallel $(nproc) --target format-test",
        ],
      },
    },
  },
  "gin-gonic/gin": {
    language: "go",
    log_parser: "gotest",
    versions: {
      "1805": { test_cmd: ['go test -v . -run "^Test.*Router"'] },
      "1957": { test_cmd: ['go test -v . -run "^TestContext.*Bind"'] },
      "2121": { test_cmd: ['go test -v ./... -run "^Test.*Reader"'] },
      "2755": { test_cmd: ['go test -v . -run "^TestTree"'] },
      "3227": { test_cmd: ['go test -v . -run "^TestRedirect"'] },
      "3741": { test_cmd: ['go test -v . -run "^TestColor"'] },
      "3820": { test_cmd: ['go test -v ./binding -run "^TestMapping"'] },
      "4003": { test_cmd: ['go test . -v -run "TestMethodNotAllowedNoRoute"'] },
    },
  },
  "gohugoio/hugo": {
    language: "go",
    log_parser: "gotest",
    versions: {
      "12171": { test_cmd: ['go test -v ./hugolib -run "^Test.*Pages"'] },
      "12204": { test_cmd: ['go test -v ./tpl/tplimpl -run "^TestEmbedded"'] },
      "12343": { test_cmd: ['go test -v ./resources/page/... -run "^Test.*Permalink"'] },
      "12448": { test_cmd: ['go test -v ./hugolib/... -run "^TestRebuild"'] },
      "12562": { test_cmd: ['go test -v ./hugolib/... -run "^TestGetPage[^/]"'] },
      "12579": { test_cmd: ['go test -v ./resources/page -run "^TestGroupBy"'] },
      "12768": { test_cmd: ["go test -v ./markup/goldmark/blockquotes/..."] },
    },
  },
  "google/gson": {
    language: "java",
    log_parser: "maven",
    versions: {
      "1014": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_emptyJsonObject",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_filledJsonObject",
        ],
      },
      "1093": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteDoublesWhenLenient",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteBoxedDoublesWhenLenient",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteDoubles",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteBoxedDoubles",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testDoubles",
        ],
      },
      "1100": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testNullValue",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testDatePattern",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testInvalidDatePattern",
        ],
      },
      "2024": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.FieldNamingTest#testUpperCaseWithUnderscores",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.NamingPolicyTest#testGsonWithUpperCaseUnderscorePolicySerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.NamingPolicyTest#testGsonWithUpperCaseUnderscorePolicyDeserialiation",
        ],
      },
      "2061": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testHasNextEndOfDocument",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testHasNext_endOfDocument",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testReadEmptyObject",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testReadEmptyArray",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_emptyJsonObject",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_filledJsonObject",
        ],
      },
      "2134": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseInvalidDay",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseInvalidMonth",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseWithDefaultTimezone",
        ],
      },
      "2158": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testByteSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testShortSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testIntSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testLongSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testFloatSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testDoubleSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveIntegerAutoboxedSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveIntegerAutoboxedInASingleElementArraySerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testReallyLongValuesSerialization",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveLongAutoboxedSerialization",
        ],
      },
      "2311": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testEqualsIntegerAndBigInteger",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testLongEqualsBigInteger",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testEqualsAcrossTypes",
        ],
      },
      "2479": {
        test_cmd: [
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testRegisterTypeAdapterForObjectAndJsonElements",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testRegisterTypeHierarchyAdapterJsonElements",
          "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testModificationAfterCreate",
        ],
      },
    },
  },
  "hashicorp/terraform": {
    language: "go",
    log_parser: "gotest",
    versions: {
      "34580": { test_cmd: ['go test -v ./internal/command -run "^TestFmt"'] },
      "34814": { test_cmd: ["go test -v ./internal/builtin/provisioners/remote-exec"] },
      "34900": {
        test_cmd: [
          'go test -v ./internal/terraform -run "(^TestContext2Apply|^TestContext2Plan).*[Ss]ensitive"',
        ],
      },
      "35543": { test_cmd: ['go test -v ./internal/terraform -run "^TestContext2Plan_import"'] },
      "35611": { test_cmd: ['go test -v ./internal/terraform -run "^TestContext2Apply_provisioner"'] },
    },
  },
  "immutable-js/immutable-js": {
    language: "javascript",
    log_parser: "immutable_js",
    versions: {
      "2005": {
        test_cmd: [
          'npx jest __tests__/OrderedMap.ts __tests__/OrderedSet.ts --silent --json | jq -r \'.testResults[].assertionResults[] | "[" + (.status | ascii_upcase) + "] " + ((.ancestorTitles | join(" > ")) + (if .ancestorTitles | length > 0 then " > " else "" end) + .title)\'',
        ],
        build: ["npm run build"],
      },
      "2006": { test_cmd: ["npx jest __tests__/Range.ts --verbose"], build: ["npm run build"] },
    },
  },
  "javaparser/javaparser": {
    language: "java",
    log_parser: "maven",
    versions: {
      "4538": {
        test_cmd: [
          "./mvnw test -B -pl javaparser-core-testing -Dtest=NodeTest",
          "./mvnw test -B -pl javaparser-core-testing -Dtest=NodePositionTest",
        ],
        build: ["./mvnw clean install -B -pl javaparser-core-testing -DskipTests -am"],
      },
      "4561": {
        test_cmd: [
          "./mvnw test -B -pl javaparser-symbol-solver-testing -Dtest=Issue4560Test",
          "./mvnw test -B -pl javaparser-symbol-solver-testing -Dtest=JavaSymbolSolverTest",
        ],
        build: ["./mvnw clean install -B -pl javaparser-symbol-solver-testing -DskipTests -am"],
      },
    },
  },
  "jekyll/jekyll": {
    language: "ruby",
    log_parser: "jekyll",
    versions: {
      "8047": { test_cmd: ['bundle exec ruby -I test test/test_filters.rb -v -n "/where_exp filter/"'] },
      "8167": { test_cmd: ['bundle exec ruby -I test test/test_utils.rb -v -n "/Utils.slugify/"'] },
      "8761": {
        test_cmd: [
          "bundle exec cucumber --publish-quiet --format progress --no-color features/post_data.feature:6 features/post_data.feature:30",
        ],
      },
      "8771": {
        test_cmd: [
          "bundle exec cucumber --publish-quiet --format progress --no-color features/incremental_rebuild.feature:27 features/incremental_rebuild.feature:70",
        ],
      },
      "9141": { test_cmd: ['bundle exec ruby -I test test/test_site.rb -v -n "/static files/"'] },
    },
  },
  "jordansissel/fpm": {
    language: "ruby",
    log_parser: "rspec_transformed_json",
    versions: {
      "1829": {
        test_cmd: [
          "bundle exec rspec spec/fpm/package/deb_spec.rb --no-color --format json | sed -n '/^{/,$p' | jq -r '.examples[] | \"\\(.description) - \\(.status)\"'",
        ],
      },
      "1850": {
        test_cmd: [
          "bundle exec rspec spec/fpm/package/empty_spec.rb --no-color --format json | sed -n '/^{/,$p' | jq -r '.examples[] | \"\\(.description) - \\(.status)\"'",
        ],
      },
    },
  },
  "jqlang/jq": {
    language: "c",
    log_parser: "jq",
    versions: {
      "2235": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2598": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2650": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2658": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2681": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2728": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2750": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2839": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
      "2919": {
        test_cmd: ["make check"],
        build: [
          "git submodule update --init",
          "autoreconf -fi",
          "./configure --with-oniguruma=builtin",
          "make clean",
          "touch src/parser.y src/lexer.l",
          "make -j$(nproc)",
        ],
      },
    },
  },
  "laravel/framework": {
    language: "php",
    log_parser: "phpunit",
    versions: {
      "46234": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Routing/RoutingUrlGeneratorTest.php"],
      },
      "48573": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Cache/CacheArrayStoreTest.php"],
      },
      "48636": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseEloquentModelTest.php",
        ],
      },
      "51195": {
        test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/View/Blade/BladeVerbatimTest.php"],
      },
      "51890": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Validation/ValidationValidatorTest.php --filter 'attribute'",
        ],
      },
      "52451": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Validation/ValidationValidatorTest.php --filter 'custom'",
        ],
      },
      "52680": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseEloquentInverseRelationTest.php",
        ],
      },
      "52684": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Support/SupportStrTest.php"] },
      "52866": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Container/ContextualAttributeBindingTest.php",
        ],
      },
      "53206": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Support/SupportJsTest.php"] },
      "53696": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseSchemaBlueprintTest.php",
        ],
      },
      "53914": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Integration/Database/DatabaseConnectionsTest.php",
        ],
      },
      "53949": { test_cmd: ["vendor/bin/phpunit --testdox --colors=never tests/Support/OnceTest.php"] },
    },
  },
  "markedjs/marked": {
    language: "javascript",
    log_parser: "marked",
    versions: {
      ...forVersions(["0.3", "0.5", "0.6", "0.7", "1.0", "1.1", "1.2", "2.0", "3.9", "4.0", "4.1", "5.0"], {
        test_cmd: ["./node_modules/.bin/jasmine --no-color --config=jasmine.json"],
      }),
    },
  },
  "micropython/micropython": {
    language: "c",
    log_parser: "micropython_test",
    versions: {
      "10095": {
        test_cmd: [
          "cd tests",
          "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i basics/fun",
        ],
        build: ["source ./tools/ci.sh", "ci_unix_build_helper VARIANT=standard"],
      },
      "12158": {
        test_cmd: [
          "cd tests",
          "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -d thread",
        ],
        build: [
          "source ./tools/ci.sh",
          "ci_unix_build_helper VARIANT=standard",
          "gcc -shared -o tests/unix/ffi_lib.so tests/unix/ffi_lib.c",
        ],
      },
      "13039": {
        test_cmd: [
          "cd tests",
          "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i slice",
        ],
        build: [
          "source ./tools/ci.sh",
          "ci_unix_build_helper VARIANT=standard",
          "gcc -shared -o tests/unix/ffi_lib.so tests/unix/ffi_lib.c",
        ],
      },
      "13569": {
        test_cmd: [
          "cd tests",
          "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i try",
        ],
        build: [
          "source ./tools/ci.sh",
          "ci_unix_build_helper VARIANT=standard",
          "gcc -shared -o tests/ports/unix/ffi_lib.so tests/ports/unix/ffi_lib.c",
        ],
      },
      "15898": {
        test_cmd: [
          "cd tests",
          "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i string_format",
        ],
        build: [
          "source ./tools/ci.sh",
          "ci_unix_build_helper VARIANT=standard",
          "gcc -shared -o tests/ports/unix/ffi_lib.so tests/ports/unix/ffi_lib.c",
        ],
      },
    },
  },
  "mrdoob/three.js": {
    language: "javascript",
    log_parser: "tap",
    versions: {
      "25687": { test_cmd: ['npx qunit test/unit/src/core/Object3D.tests.js -f "/json|clone|copy/i"'] },
      "26589": {
        test_cmd: [
          "npx qunit test/unit/src/objects/Line.tests.js test/unit/src/objects/Mesh.tests.js test/unit/src/objects/Points.tests.js",
        ],
      },
      "27395": { test_cmd: ["npx qunit test/unit/src/math/Sphere.tests.js"] },
    },
  },
  "nlohmann/json": {
    language: "c",
    log_parser: "doctest",
    versions: {
      "4237": {
        test_cmd: ["./build/tests/test-udt_cpp11 -s -r=xml"],
        build: ["mkdir -p build", "cd build", "cmake ..", "make test-udt_cpp11", "cd .."],
      },
    },
  },
  "nushell/nushell": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "12901": { test_cmd: ["cargo test --no-fail-fast shell::env"] },
      "12950": { test_cmd: ["cargo test external_arguments --no-fail-fast"] },
      "13246": {
        test_cmd: ["cargo test -p nu-command --no-fail-fast --test main find::"],
        build: ["cargo build"],
      },
      "13605": { test_cmd: ["cargo test -p nu-command --no-fail-fast ls::"], build: ["cargo build"] },
      "13831": { test_cmd: ["cargo test -p nu-command --no-fail-fast split_column"], build: ["cargo build"] },
    },
  },
  "php-cs-fixer/php-cs-fixer": {
    language: "php",
    log_parser: "phpunit",
    versions: {
      "7523": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Operator/BinaryOperatorSpacesFixerTest.php",
        ],
      },
      "7635": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Import/FullyQualifiedStrictTypesFixerTest.php",
        ],
      },
      "7663": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Whitespace/StatementIndentationFixerTest.php",
        ],
      },
      "7875": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Whitespace/StatementIndentationFixerTest.php",
        ],
      },
      "7998": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Casing/ConstantCaseFixerTest.php",
        ],
      },
      "8064": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/StringNotation/SimpleToComplexStringVariableFixerTest.php",
        ],
      },
      "8075": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/PhpUnit/PhpUnitAttributesFixerTest.php",
        ],
      },
      "8256": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/PhpTag/BlankLineAfterOpeningTagFixerTest.php",
        ],
      },
      "8331": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/LanguageConstruct/NullableTypeDeclarationFixerTest.php",
        ],
      },
      "8367": {
        test_cmd: [
          "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Import/FullyQualifiedStrictTypesFixerTest.php",
        ],
      },
    },
  },
  "phpoffice/phpspreadsheet": {
    language: "php",
    log_parser: "phpunit",
    versions: {
      "3463": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Writer/Xlsx/FunctionPrefixTest.php",
        ],
      },
      "3469": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Style/StyleTest.php",
        ],
      },
      "3570": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Calculation/Functions/LookupRef/VLookupTest.php",
        ],
      },
      "3659": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/Table/Issue3635Test.php",
        ],
      },
      "3903": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Shared/StringHelperTest.php",
        ],
      },
      "3940": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/WorksheetTest.php",
        ],
      },
      "4114": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/Issue4112Test.php",
        ],
      },
      "4186": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Writer/Xlsx/FunctionPrefixTest.php",
        ],
      },
      "4214": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Calculation/Functions/MathTrig/RoundDownTest.php",
        ],
      },
      "4313": {
        test_cmd: [
          "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Reader/Ods/FormulaTranslatorTest.php",
        ],
      },
    },
  },
  "preactjs/preact": {
    language: "javascript",
    log_parser: "karma",
    versions: {
      "2757": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
        ],
      },
      "2896": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="compat/test/browser/memo.test.js"',
        ],
      },
      "2927": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
        ],
      },
      "3010": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
        ],
      },
      "3062": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
        ],
      },
      "3345": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useEffect.test.js"',
        ],
      },
      "3454": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/svg.test.js"',
        ],
      },
      "3562": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="compat/test/browser/render.test.js"',
        ],
      },
      "3567": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useEffect.test.js"',
        ],
      },
      "3689": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/errorBoundary.test.js"',
        ],
      },
      "3739": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useState.test.js"',
        ],
      },
      "3763": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/lifecycles/componentDidMount.test.js"',
        ],
      },
      "4152": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/components.test.js"',
        ],
      },
      "4182": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/errorBoundary.test.js"',
        ],
      },
      "4245": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useId.test.js"',
        ],
      },
      "4316": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/events.test.js"',
        ],
      },
      "4436": {
        test_cmd: [
          'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/refs.test.js"',
        ],
      },
    },
  },
  "processing/p5.js": {
    language: "javascript",
    log_parser: "p5js",
    versions: {
      "0.2": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.4": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.5": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.6": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.7": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.8": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.9": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.0": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.1": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.2": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.3": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.4": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.5": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.6": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.7": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.8": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "1.9": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
      "0.10": {
        test_cmd: [
          "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
        ],
      },
    },
  },
  "projectlombok/lombok": {
    language: "java",
    log_parser: "ant",
    versions: {
      ...forVersions(
        [
          "2792",
          "3009",
          "3042",
          "3052",
          "3215",
          "3312",
          "3326",
          "3350",
          "3371",
          "3422",
          "3479",
          "3486",
          "3571",
          "3594",
          "3602",
          "3674",
          "3697",
        ],
        { test_cmd: ["ant test.instance"], build: ["ant test.compile"] },
      ),
    },
  },
  "prometheus/prometheus": {
    language: "go",
    log_parser: "gotest",
    versions: {
      "9248": { test_cmd: ['go test -v ./promql -run "^TestEvaluations"'] },
      "10633": { test_cmd: ['go test -v ./discovery/puppetdb -run "TestPuppetDBRefreshWithParameters"'] },
      "10720": { test_cmd: ['go test -v ./promql -run "^TestEvaluations"'] },
      "11859": { test_cmd: ['go test -v ./tsdb -run "^TestSnapshot"'] },
      "12874": { test_cmd: ['go test -v ./tsdb -run "^TestHead"'] },
      "13845": { test_cmd: ['go test -v ./promql ./model/labels -run "^(TestRangeQuery|TestLabels)"'] },
      "14861": { test_cmd: ['go test -v ./promql -run "^TestEngine"'] },
      "15142": { test_cmd: ['go test -v ./tsdb -run "^TestHead"'] },
    },
  },
  "reactivex/rxjava": {
    language: "java",
    log_parser: "gradle_custom",
    versions: {
      "7597": {
        test_cmd: [
          "./gradlew test --tests io.reactivex.rxjava3.internal.operators.observable.ObservableSwitchTest",
        ],
      },
    },
  },
  "redis/redis": {
    language: "c",
    log_parser: "redis",
    versions: {
      "9733": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/introspection-2"],
        build: ["make distclean", "make"],
      },
      "10068": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/type/stream --only "/*XTRIM*"'],
        build: ["make distclean", "make"],
      },
      "10095": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/type/list --only "/.*(LPOP|RPOP)"'],
        build: ["make distclean", "make"],
      },
      "10764": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/type/zset --only "BZMPOP"'],
        build: ["make distclean", "make"],
      },
      "11279": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/acl"],
        build: ["make distclean", "make"],
      },
      "11510": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/introspection --only "/.*MONITOR.*"'],
        build: ["make distclean", "make"],
      },
      "11631": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/geo --only "/.*GEOSEARCH .*"'],
        build: ["make distclean", "make"],
      },
      "11734": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/bitops"],
        build: ["make distclean", "make"],
      },
      "12272": {
        test_cmd: [
          'TERM=dumb ./runtest --durable --single unit/type/string --only "/.*(GETRANGE|SETRANGE).*"',
        ],
        build: ["make distclean", "make"],
      },
      "12472": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/acl --only "/.*ACL GETUSER.*"'],
        build: ["make distclean", "make"],
      },
      "13115": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/scripting"],
        build: ["make distclean", "make"],
      },
      "13338": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/type/stream-cgroups"],
        build: ["make distclean", "make"],
      },
    },
  },
  "rubocop/rubocop": {
    language: "ruby",
    log_parser: "rspec_transformed_json",
    versions: {
      "13362": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/redundant_freeze_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13375": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cli_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13393": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/guard_clause_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13396": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/redundant_parentheses_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13424": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/safe_navigation_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13431": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/layout/empty_lines_around_method_body_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13479": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/layout/leading_comment_space_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13503": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/dig_chain_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13560": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/file_null_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13579": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/layout/line_continuation_spacing_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13627": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/multiple_comparison_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13653": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/access_modifier_declarations_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13668": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/sole_nested_conditional_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13680": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/style/redundant_line_continuation_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13687": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/lint/safe_navigation_chain_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
      "13705": {
        test_cmd: [
          'bundle exec rspec spec/rubocop/cop/lint/out_of_range_regexp_ref_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
        ],
      },
    },
  },
  "sharkdp/bat": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "562": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests cache"] },
      "1892": {
        test_cmd: [
          "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests ignored_suffix_arg",
        ],
      },
      "2201": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests pag"] },
      "2260": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests syntax"] },
      "2393": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests cache_"] },
      "2650": {
        test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests map_syntax"],
      },
      "2835": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests header"] },
      "3108": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests pag"] },
    },
  },
  "tokio-rs/axum": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "682": {
        test_cmd: [
          "RUSTFLAGS=-Awarnings cargo test --package axum --lib trailing -- with_trailing_slash_post without_trailing_slash_post",
        ],
      },
      "691": {
        test_cmd: [
          "RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::nest::nesting_router_at_root --exact",
        ],
      },
      "734": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::head"] },
      "1119": { test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package axum --lib slash"] },
      "1730": {
        test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::mod state"],
      },
      "1934": {
        test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::fallback"],
      },
      "2096": {
        test_cmd: ["RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::fallback"],
      },
    },
  },
  "tokio-rs/tokio": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "4384": {
        test_cmd: [
          "RUSTFLAGS=-Awarnings cargo test --package tokio --test net_types_unwind --features full --no-fail-fast",
        ],
      },
      "4867": { test_cmd: ["cargo test --test sync_broadcast --no-fail-fast"] },
      "4898": { test_cmd: ['RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics'] },
      "6551": {
        test_cmd: [
          'RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics --no-fail-fast',
        ],
      },
      "6603": { test_cmd: ["cargo test --test sync_mpsc --no-fail-fast"] },
      "6724": { test_cmd: ["cargo test --test io_write_all_buf --no-fail-fast"] },
      "6752": { test_cmd: ["cargo test --test time_delay_queue --no-fail-fast"] },
      "6838": { test_cmd: ["cargo test --test uds_stream --no-fail-fast"] },
      "7139": { test_cmd: ['RUSTFLAGS="--cfg tokio_unstable" cargo test --test fs_file --no-fail-fast'] },
    },
  },
  "uutils/coreutils": {
    language: "rust",
    log_parser: "cargo",
    versions: {
      "6377": { test_cmd: ["cargo test test_env --no-fail-fast"] },
      "6575": { test_cmd: ["cargo test cksum --no-fail-fast"] },
      "6682": { test_cmd: ["cargo test mkdir --no-fail-fast"] },
      "6690": {
        test_cmd: [
          "cargo test --no-fail-fast -- test_cp_cp test_cp_same_file test_cp_multiple_files test_cp_single_file test_cp_no_file",
        ],
      },
      "6731": { test_cmd: ["cargo test backslash --no-fail-fast"] },
    },
  },
  "valkey-io/valkey": {
    language: "c",
    log_parser: "redis",
    versions: {
      "790": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/cluster/cluster-shards"],
        build: ["make distclean", "make"],
      },
      "928": {
        test_cmd: [
          'TERM=dumb ./runtest --durable --single unit/cluster/replica-migration --only "/.*NOREPLICAS.*"',
        ],
        build: ["make distclean", "make"],
      },
      "1499": {
        test_cmd: ["TERM=dumb ./runtest --durable --single unit/introspection-2"],
        build: ["make distclean", "make"],
      },
      "1842": {
        test_cmd: ['TERM=dumb ./runtest --durable --single unit/acl --only "/.*ACL LOAD.*"'],
        build: ["make distclean", "make"],
      },
    },
  },
  "vuejs/core": {
    language: "javascript",
    log_parser: "vitest",
    versions: {
      "11589": {
        test_cmd: [
          "pnpm run test packages/runtime-core/__tests__/apiWatch.spec.ts --no-watch --reporter=verbose",
        ],
      },
      "11739": {
        test_cmd: [
          'pnpm run test packages/runtime-core/__tests__/hydration.spec.ts --no-watch --reporter=verbose -t "mismatch handling"',
        ],
      },
      "11870": {
        test_cmd: [
          "pnpm run test packages/runtime-core/__tests__/helpers/renderList.spec.ts --no-watch --reporter=verbose",
        ],
      },
      "11899": {
        test_cmd: [
          "pnpm run test packages/compiler-sfc/__tests__/compileStyle.spec.ts --no-watch --reporter=verbose",
        ],
        build: ["pnpm run build compiler-sfc"],
      },
      "11915": {
        test_cmd: [
          'pnpm run test packages/compiler-core/__tests__/parse.spec.ts --no-watch --reporter=verbose -t "Element"',
        ],
      },
    },
  },
};

/**
 * The harness's parser of each non-Python repository (`MAP_REPO_TO_PARSER_*` of v5), also for
 * repositories without a spec entry above (Multimodal's). Names as in LOG_PARSERS.
 */
export const NON_PYTHON_PARSERS: Readonly<Record<string, string>> = {
  "redis/redis": "redis",
  "jqlang/jq": "jq",
  "nlohmann/json": "doctest",
  "micropython/micropython": "micropython_test",
  "valkey-io/valkey": "redis",
  "fmtlib/fmt": "googletest",
  "caddyserver/caddy": "gotest",
  "hashicorp/terraform": "gotest",
  "prometheus/prometheus": "gotest",
  "gohugoio/hugo": "gotest",
  "gin-gonic/gin": "gotest",
  "google/gson": "maven",
  "apache/druid": "maven",
  "javaparser/javaparser": "maven",
  "projectlombok/lombok": "ant",
  "apache/lucene": "gradle_custom",
  "reactivex/rxjava": "gradle_custom",
  "Automattic/wp-calypso": "calypso",
  "chartjs/Chart.js": "chart_js",
  "markedjs/marked": "marked",
  "processing/p5.js": "p5js",
  "diegomura/react-pdf": "react_pdf",
  "babel/babel": "jest",
  "vuejs/core": "vitest",
  "facebook/docusaurus": "jest",
  "immutable-js/immutable-js": "immutable_js",
  "mrdoob/three.js": "tap",
  "preactjs/preact": "karma",
  "axios/axios": "tap",
  "alibaba-fusion/next": "next",
  "bpmn-io/bpmn-js": "bpmn_js",
  "carbon-design-system/carbon": "carbon",
  "cypress-io/cypress": "cypress",
  "emotion-js/emotion": "emotion",
  "eslint/eslint": "eslint",
  "GoogleChrome/lighthouse": "lighthouse",
  "grommet/grommet": "grommet",
  "highlightjs/highlight.js": "highlightjs",
  "openlayers/openlayers": "openlayers",
  "plotly/plotly.js": "plotly_js",
  "prettier/prettier": "prettier",
  "PrismJS/prism": "prismjs",
  "quarto-dev/quarto-cli": "quarto_cli",
  "scratchfoundation/scratch-gui": "scratch_gui",
  "phpoffice/phpspreadsheet": "phpunit",
  "laravel/framework": "phpunit",
  "php-cs-fixer/php-cs-fixer": "phpunit",
  "briannesbitt/carbon": "phpunit",
  "jekyll/jekyll": "jekyll",
  "fluent/fluentd": "ruby_unit",
  "fastlane/fastlane": "rspec_transformed_json",
  "jordansissel/fpm": "rspec_transformed_json",
  "faker-ruby/faker": "ruby_unit",
  "rubocop/rubocop": "rspec_transformed_json",
  "burntsushi/ripgrep": "cargo",
  "sharkdp/bat": "cargo",
  "astral-sh/ruff": "cargo",
  "tokio-rs/tokio": "cargo",
  "uutils/coreutils": "cargo",
  "nushell/nushell": "cargo",
  "tokio-rs/axum": "cargo",
};

/**
 * Repositories the harness grades fail-only (`FAIL_ONLY_REPOS`): their parsers record failing
 * tests only, so a test is a success unless it is present and FAILED. v4.1 lists three; v5 adds
 * bpmn-js, openlayers and eslint.
 */
const FAIL_ONLY_41 = ["chartjs/Chart.js", "processing/p5.js", "markedjs/marked"];
const FAIL_ONLY_5 = [...FAIL_ONLY_41, "bpmn-io/bpmn-js", "openlayers/openlayers", "eslint/eslint"];

/** Whether the harness release grades `repo` fail-only. */
export function isFailOnlyRepo(repo: string, harness: "4.1" | "5"): boolean {
  return (harness === "5" ? FAIL_ONLY_5 : FAIL_ONLY_41).includes(repo);
}

/** The harness's spec for a non-Python `repo` at `version`, with its parser, or undefined. */
export function lookupCommonSpec(
  repo: string,
  version: string,
): (CommonEvalSpec & { log_parser: string; language: LanguageRepo["language"] }) | undefined {
  const entry = MULTILINGUAL_SPECS[repo];
  const spec = entry?.versions[version];
  return spec && { ...spec, log_parser: entry.log_parser, language: entry.language };
}
