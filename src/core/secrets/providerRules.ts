/**
 * Token shapes of the providers developers use: credentials that carry a distinctive prefix or
 * structure, so they can be recognised without any name next to them.
 *
 * Written from the providers' documented token formats; the public rule set of gitleaks (MIT,
 * see THIRD_PARTY_NOTICES.md) was the checklist of which providers and prefixes exist.
 *
 * How a rule is applied (see masker.ts): the keyword scan finds a keyword; the masker widens it
 * to the maximal run of the rule's `chars` around it (refusing runs glued to a letter or digit,
 * and runs over MAX_TOKEN characters), then tests `pattern` against that whole run. So every
 * pattern below is matched against a bounded string, anchored at both ends, and is written as
 * literals and bounded character-class repeats separated by literals: no nested quantifier, no
 * two adjacent repeats over overlapping classes, hence no catastrophic backtracking (a unit test
 * feeds every rule a 1 MB adversarial line).
 */

export type SecretFamily =
  | 'cloud'
  | 'vcs-ci'
  | 'registry'
  | 'payment'
  | 'llm'
  | 'messaging'
  | 'observability'
  | 'database'
  | 'saas'
  | 'crypto';

export interface ShapeRule {
  /** Stable id; also the marker kind unless `marker` is set. */
  readonly id: string;
  readonly family: SecretFamily;
  /** Lowercase literals; at least one occurs (case-insensitively) in every match. */
  readonly keywords: readonly string[];
  /** Body of the character class the token is made of (the run the pattern is tested against). */
  readonly chars: string;
  /** Regex source matched against the whole run (or its tail, with `search`). */
  readonly pattern: string;
  readonly ignoreCase?: boolean;
  /** The pattern may start inside the run (URLs with a scheme or prefix before them). */
  readonly search?: boolean;
  /** Marker kind when several rules share one (kept stable for existing users). */
  readonly marker?: string;
  /** Extra test on the token, for shapes a regex cannot express cheaply. */
  readonly check?: (token: string) => boolean;
}

/** Longest run a shape is tested against; longer runs are data blobs, not credentials. */
export const MAX_TOKEN = 4096;

const W = 'A-Za-z0-9_';
const WD = 'A-Za-z0-9_\\-';
const WDD = 'A-Za-z0-9_.\\-';
const B64U = 'A-Za-z0-9+/=_\\-';
const UP = 'A-Z0-9';
const UPD = 'A-Z0-9\\-';
const URL = 'A-Za-z0-9_.~:/@%+\\-';
const HEX = '[0-9a-f]';
const UUID = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;

function hasLetterAndDigit(s: string): boolean {
  return /[0-9]/.test(s) && /[A-Za-z]/.test(s);
}

function r(id: string, family: SecretFamily, keywords: string[], chars: string, pattern: string, extra: Partial<ShapeRule> = {}): ShapeRule {
  return { id, family, keywords, chars, pattern, ...extra };
}

/** The built-in token shapes, most specific first (the first rule that matches a run names it). */
export const SHAPE_RULES: readonly ShapeRule[] = [
  // ---- version control and CI
  r('github-pat', 'vcs-ci', ['ghp_'], W, 'ghp_[A-Za-z0-9]{36,251}', { marker: 'github-token' }),
  r('github-oauth', 'vcs-ci', ['gho_'], W, 'gho_[A-Za-z0-9]{36,251}', { marker: 'github-token' }),
  r('github-app-token', 'vcs-ci', ['ghu_', 'ghs_'], W, 'gh[us]_[A-Za-z0-9]{36,251}', { marker: 'github-token' }),
  r('github-refresh-token', 'vcs-ci', ['ghr_'], W, 'ghr_[A-Za-z0-9]{36,251}', { marker: 'github-token' }),
  r('github-fine-grained-pat', 'vcs-ci', ['github_pat_'], W, 'github_pat_[A-Za-z0-9_]{20,255}', { marker: 'github-token' }),
  r('gitlab-pat', 'vcs-ci', ['glpat-'], WDD, 'glpat-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z]{2}\\.?[0-9a-z]{7,9})?', { marker: 'gitlab-token' }),
  r('gitlab-deploy-token', 'vcs-ci', ['gldt-'], WDD, 'gldt-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z.]{9,12})?', { marker: 'gitlab-token' }),
  r('gitlab-runner-token', 'vcs-ci', ['glrt-'], WDD, 'glrt-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z.]{9,12})?', { marker: 'gitlab-token' }),
  r('gitlab-cicd-job-token', 'vcs-ci', ['glcbt-'], WDD, 'glcbt-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z.]{9,12})?', { marker: 'gitlab-token' }),
  r('gitlab-feed-token', 'vcs-ci', ['glft-'], WDD, 'glft-[A-Za-z0-9_-]{20,300}(?:\\.[0-9a-z.]{9,12})?', { marker: 'gitlab-token' }),
  r('gitlab-incoming-mail-token', 'vcs-ci', ['glimt-'], WD, 'glimt-[A-Za-z0-9_-]{25,300}', { marker: 'gitlab-token' }),
  r('gitlab-agent-token', 'vcs-ci', ['glagent-'], WDD, 'glagent-[A-Za-z0-9_-]{50,300}(?:\\.[0-9a-z.]{9,12})?', { marker: 'gitlab-token' }),
  r('gitlab-oauth-app-secret', 'vcs-ci', ['gloas-'], WD, 'gloas-[A-Za-z0-9_-]{64,300}', { marker: 'gitlab-token' }),
  r('gitlab-trigger-token', 'vcs-ci', ['glptt-'], WD, 'glptt-[0-9a-f]{40}', { marker: 'gitlab-token' }),
  r('gitlab-scim-token', 'vcs-ci', ['glsoat-'], WD, 'glsoat-[A-Za-z0-9_-]{20,300}', { marker: 'gitlab-token' }),
  r('gitlab-feature-flag-token', 'vcs-ci', ['glffct-'], WD, 'glffct-[A-Za-z0-9_-]{20,300}', { marker: 'gitlab-token' }),
  r('gitlab-runner-registration-token', 'vcs-ci', ['gr1348941'], WD, 'GR1348941[A-Za-z0-9_-]{20,300}', { marker: 'gitlab-token' }),
  r('gitlab-session-cookie', 'vcs-ci', ['_gitlab_session='], W, '_gitlab_session=([0-9a-z]{32})', { marker: 'gitlab-token', search: true }),
  r('bitbucket-app-password', 'vcs-ci', ['atbb'], WDD + '=', 'ATBB[A-Za-z0-9_=.-]{28,120}'),
  r('atlassian-api-token', 'vcs-ci', ['atatt3', 'atctt3'], WD + '=', 'AT[AC]TT3[A-Za-z0-9_=-]{150,300}'),
  r('circleci-token', 'vcs-ci', ['ccipat_', 'cciprj_'], W, 'CCI(?:PAT|PRJ)_[A-Za-z0-9]{20,30}_[a-f0-9]{40}'),
  r('buildkite-token', 'vcs-ci', ['bkua_'], W, 'bkua_[a-f0-9]{40}'),
  r('sourcegraph-token', 'vcs-ci', ['sgp_'], W, 'sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}'),
  r('sonarqube-token', 'vcs-ci', ['squ_', 'sqp_', 'sqa_'], W, 'sq[upa]_[a-f0-9]{40}'),
  r('harness-token', 'vcs-ci', ['pat.', 'sat.'], WDD, '[ps]at\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}'),
  r('octopus-deploy-api-key', 'vcs-ci', ['api-'], UPD, 'API-[A-Z0-9]{26}'),
  r('jfrog-api-key', 'vcs-ci', ['akcp'], W, 'AKCp[A-Za-z0-9]{69}'),
  r('jfrog-reference-token', 'vcs-ci', ['cmvmd'], W, 'cmVmd[A-Za-z0-9]{59}'),
  r('pulumi-token', 'vcs-ci', ['pul-'], WD, 'pul-[a-f0-9]{40}'),
  r('terraform-cloud-token', 'vcs-ci', ['atlasv1'], WDD + '=', '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}'),
  r('vault-service-token', 'vcs-ci', ['hvs.'], WDD, 'hvs\\.[A-Za-z0-9_-]{90,120}'),
  r('vault-batch-token', 'vcs-ci', ['hvb.'], WDD, 'hvb\\.[A-Za-z0-9_-]{138,300}'),
  r('vault-recovery-token', 'vcs-ci', ['hvr.'], WDD, 'hvr\\.[A-Za-z0-9_-]{20,300}'),
  r('doppler-token', 'vcs-ci', ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'], WDD, 'dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9_.-]{40,200}'),
  r('infracost-token', 'vcs-ci', ['ico-'], WD, 'ico-[A-Za-z0-9]{32}'),
  r('prefect-token', 'vcs-ci', ['pnu_'], W, 'pnu_[A-Za-z0-9]{36}'),
  r('codecov-token', 'vcs-ci', ['codecov_'], W, 'CODECOV_[A-Za-z0-9]{30,60}'),
  r('snyk-token', 'vcs-ci', ['snyk_'], WDD, 'snyk_(?:uat|sat)\\.[a-z0-9]{8}\\.[A-Za-z0-9_-]{20,80}'),
  r('depot-token', 'vcs-ci', ['depot_'], W, 'depot_(?:org|project|user)_[A-Za-z0-9]{40,80}'),
  r('fly-token', 'vcs-ci', ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'], B64U, '(?:fo1_[A-Za-z0-9_-]{43}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,3000}={0,3})'),
  r('netlify-token', 'vcs-ci', ['nfp_'], W, 'nfp_[A-Za-z0-9]{30,50}'),
  r('render-api-key', 'vcs-ci', ['rnd_'], W, 'rnd_[A-Za-z0-9]{28,40}'),
  r('heroku-api-key', 'vcs-ci', ['hrku-'], WD, 'HRKU-(?:AA[A-Za-z0-9_-]{58}|' + UUID + ')'),
  r('scalingo-token', 'vcs-ci', ['tk-us-'], WD, 'tk-us-[A-Za-z0-9_-]{48}'),
  r('readme-api-key', 'vcs-ci', ['rdme_'], W, 'rdme_[a-z0-9]{70}'),
  r('postman-api-key', 'vcs-ci', ['pmak-'], WD, 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}'),
  r('1password-secret-key', 'vcs-ci', ['a3-'], UPD, 'A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}'),
  r('1password-service-token', 'vcs-ci', ['ops_eyj'], B64U, 'ops_eyJ[A-Za-z0-9+/_-]{250,4000}={0,3}'),

  // ---- cloud
  r('aws-access-key-id', 'cloud', ['akia', 'asia', 'abia', 'acca', 'agpa', 'aida', 'aroa', 'anpa', 'anva', 'aipa', 'a3t'], UP, '(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}'),
  r('aws-bedrock-api-key', 'cloud', ['absk', 'bedrock-api-key-'], B64U, '(?:ABSK[A-Za-z0-9+/]{100,300}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=_-]{10,4000})'),
  r('gcp-api-key', 'cloud', ['aiza'], WD, 'AIza[A-Za-z0-9_-]{35}'),
  r('gcp-oauth-client-secret', 'cloud', ['gocspx-'], WD, 'GOCSPX-[A-Za-z0-9_-]{28}'),
  r('gcp-oauth-access-token', 'cloud', ['ya29.'], WDD, 'ya29\\.[A-Za-z0-9_.-]{30,2048}'),
  r('azure-ad-client-secret', 'cloud', ['q~'], 'A-Za-z0-9_~.\\-', '[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}'),
  r('azure-devops-pat', 'cloud', ['azdo'], 'A-Za-z0-9', '[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}'),
  r('azure-storage-sas-signature', 'cloud', ['sig='], 'A-Za-z0-9%+/=_\\-', 'sig=([A-Za-z0-9%+/_-]{20,200}(?:%3[Dd]|=){0,2})', { search: true }),
  r('alibaba-access-key-id', 'cloud', ['ltai'], 'A-Za-z0-9', 'LTAI[A-Za-z0-9]{12,30}'),
  r('tencent-secret-id', 'cloud', ['akid'], 'A-Za-z0-9', 'AKID[A-Za-z0-9]{32}'),
  r('yandex-api-key', 'cloud', ['aqvn'], WD, 'AQVN[A-Za-z0-9_-]{35,38}'),
  r('scaleway-access-key', 'cloud', ['scw'], UP, 'SCW[A-Z0-9]{17}'),
  r('digitalocean-token', 'cloud', ['dop_v1_', 'doo_v1_', 'dor_v1_'], W, 'do[opr]_v1_[a-f0-9]{64}'),
  r('cloudflare-origin-ca-key', 'cloud', ['v1.0-'], WDD, 'v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}'),
  r('openshift-token', 'cloud', ['sha256~'], 'A-Za-z0-9_~\\-', 'sha256~[A-Za-z0-9_-]{43}'),
  r('dynatrace-token', 'cloud', ['dt0c01.'], WDD, 'dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}'),
  r('age-secret-key', 'crypto', ['age-secret-key-1'], UPD, 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}'),

  // ---- package registries
  r('npm-token', 'registry', ['npm_'], W, 'npm_[A-Za-z0-9]{36}'),
  r('pypi-token', 'registry', ['pypi-ageichlwas5vcmc', 'pypi-agendgvzdc5wexbplm9yzw'], WD, 'pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1000}'),
  r('rubygems-token', 'registry', ['rubygems_'], W, 'rubygems_[a-f0-9]{48}'),
  r('nuget-api-key', 'registry', ['oy2'], 'a-z0-9', 'oy2[a-z0-9]{43}'),
  r('clojars-token', 'registry', ['clojars_'], W, 'CLOJARS_[a-z0-9]{60}', { ignoreCase: true }),
  r('dockerhub-token', 'registry', ['dckr_pat_', 'dckr_oat_'], WD, 'dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64}'),
  r('crates-io-token', 'registry', ['cio'], 'A-Za-z0-9', 'cio[A-Za-z0-9]{32}', { check: hasLetterAndDigit }),
  r('deno-deploy-token', 'registry', ['ddp_', 'ddw_'], W, 'dd[pw]_[A-Za-z0-9]{36}'),
  r('hex-pm-key', 'registry', ['hexpm_'], W, 'hexpm_[A-Za-z0-9]{30,80}'),

  // ---- payment and commerce
  r('stripe-key', 'payment', ['sk_test', 'sk_live', 'sk_prod', 'rk_test', 'rk_live', 'rk_prod'], W, '[sr]k_(?:test|live|prod)_[A-Za-z0-9]{10,247}'),
  r('stripe-webhook-secret', 'payment', ['whsec_'], W + '+/=', 'whsec_[A-Za-z0-9+/=]{24,100}'),
  r('square-token', 'payment', ['sq0atp-', 'sq0csp-', 'sq0idp-'], WD, 'sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,60}'),
  r('square-access-token', 'payment', ['eaaa'], WD, 'EAAA[A-Za-z0-9_-]{60}'),
  r('braintree-token', 'payment', ['access_token$production$', 'access_token$sandbox$'], W + '$', 'access_token\\$(?:production|sandbox)\\$[0-9a-z]{16}\\$[0-9a-f]{32}'),
  r('shopify-token', 'payment', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], W, 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}'),
  r('flutterwave-key', 'payment', ['flwseck', 'flwpubk'], WD, 'FLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{32}-X'),
  r('shippo-token', 'payment', ['shippo_'], W, 'shippo_(?:live|test)_[a-fA-F0-9]{40}'),
  r('easypost-key', 'payment', ['ezak', 'eztk'], 'A-Za-z0-9', 'EZ[AT]K[A-Za-z0-9]{54}'),
  r('plaid-access-token', 'payment', ['access-sandbox-', 'access-development-', 'access-production-'], 'a-z0-9\\-', 'access-(?:sandbox|development|production)-' + UUID),
  r('duffel-token', 'payment', ['duffel_'], WD + '=', 'duffel_(?:test|live)_[A-Za-z0-9_=-]{43}'),
  r('razorpay-key', 'payment', ['rzp_live_', 'rzp_test_'], W, 'rzp_(?:live|test)_[A-Za-z0-9]{14}'),
  r('frameio-token', 'saas', ['fio-u-'], WD + '=', 'fio-u-[A-Za-z0-9_=-]{64}'),

  // ---- LLM and ML APIs
  r('anthropic-key', 'llm', ['sk-ant-'], WD, 'sk-ant-[A-Za-z0-9_-]{20,300}'),
  r('openrouter-key', 'llm', ['sk-or-v1-'], WD, 'sk-or-v1-[a-f0-9]{64}'),
  r('openai-key', 'llm', ['sk-'], WD, 'sk-[A-Za-z0-9_-]{20,300}', { check: (t) => hasLetterAndDigit(t.slice(3)) }),
  r('groq-key', 'llm', ['gsk_'], W, 'gsk_[A-Za-z0-9]{52}'),
  r('perplexity-key', 'llm', ['pplx-'], WD, 'pplx-[A-Za-z0-9]{48}'),
  r('huggingface-token', 'llm', ['hf_'], W, 'hf_[A-Za-z]{34}'),
  r('huggingface-org-token', 'llm', ['api_org_'], W, 'api_org_[A-Za-z]{34}'),
  r('replicate-token', 'llm', ['r8_'], W, 'r8_[A-Za-z0-9]{37}'),
  r('xai-key', 'llm', ['xai-'], WD, 'xai-[A-Za-z0-9]{70,90}'),
  r('langsmith-key', 'llm', ['lsv2_pt_', 'lsv2_sk_'], W, 'lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}'),
  r('pinecone-key', 'llm', ['pcsk_'], W, 'pcsk_[A-Za-z0-9_]{40,100}'),
  r('tavily-key', 'llm', ['tvly-'], WD, 'tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}'),
  r('langfuse-secret-key', 'llm', ['sk-lf-'], WD, 'sk-lf-' + UUID),

  // ---- messaging and e-mail
  r('slack-token', 'messaging', ['xoxb-', 'xoxp-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxo-', 'xoxe-', 'xoxe.'], WDD, 'xox(?:e\\.xox)?[abposre]-[A-Za-z0-9-]{10,300}'),
  r('slack-app-token', 'messaging', ['xapp-'], WD, 'xapp-[0-9]-[A-Za-z0-9]{6,20}-[0-9]{6,20}-[a-z0-9]{32,80}', { marker: 'slack-token' }),
  r('slack-webhook', 'messaging', ['hooks.slack.com'], URL, 'hooks\\.slack\\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,120})', { search: true }),
  r('discord-webhook', 'messaging', ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], URL, 'discord(?:app)?\\.com/api/webhooks/([0-9]{17,20}/[A-Za-z0-9_-]{60,70})', { search: true }),
  r('teams-webhook', 'messaging', ['webhook.office.com'], URL, 'webhook\\.office\\.com/webhookb2/([A-Za-z0-9@/_-]{60,300})', { search: true }),
  r('telegram-bot-token', 'messaging', [':aa'], W + ':\\-', '([0-9]{8,10}:AA[A-Za-z0-9_-]{33})', { search: true }),
  r('twilio-api-key', 'messaging', ['sk'], 'A-Za-z0-9', 'SK[0-9a-fA-F]{32}'),
  r('sendgrid-key', 'messaging', ['sg.'], WDD, 'SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}'),
  r('brevo-key', 'messaging', ['xkeysib-', 'xsmtpsib-'], WD, 'x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}'),
  r('mailchimp-key', 'messaging', ['-us'], 'a-z0-9\\-', '[a-f0-9]{32}-us[0-9]{1,2}'),
  r('mailgun-key', 'messaging', ['key-'], 'a-z0-9\\-', 'key-[a-f0-9]{32}'),
  r('twitter-bearer-token', 'messaging', ['aaaaaaaaaaaaaaaaaaaaaa'], 'A-Za-z0-9%', 'A{22}[A-Za-z0-9%]{80,120}'),
  r('facebook-access-token', 'messaging', ['eaa'], 'A-Za-z0-9', 'EAA[A-Za-z0-9]{100,400}'),
  r('linear-key', 'saas', ['lin_api_', 'lin_oauth_'], W, 'lin_(?:api_[A-Za-z0-9]{40}|oauth_[a-f0-9]{64})'),
  r('notion-token', 'saas', ['ntn_', 'secret_'], W, '(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})'),
  r('airtable-token', 'saas', ['pat'], 'A-Za-z0-9.', 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}'),
  r('typeform-token', 'saas', ['tfp_'], WDD + '=', 'tfp_[A-Za-z0-9_.=-]{59}'),
  r('contentful-token', 'saas', ['cfpat-'], WD, 'CFPAT-[A-Za-z0-9_-]{43}'),
  r('figma-token', 'saas', ['figd_'], WD, 'figd_[A-Za-z0-9_-]{40,50}'),
  r('hubspot-token', 'saas', ['pat-na', 'pat-eu'], 'a-z0-9\\-', 'pat-(?:na|eu)[0-9]-' + UUID),
  r('mapbox-secret-token', 'saas', ['sk.eyj'], WDD, 'sk\\.eyJ[A-Za-z0-9_-]{20,400}\\.[A-Za-z0-9_-]{20,40}'),
  r('launchdarkly-key', 'saas', ['api-', 'sdk-'], 'a-z0-9\\-', '(?:api|sdk)-' + UUID),
  r('maxmind-license-key', 'saas', ['_mmk'], W, '[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk'),
  r('settlemint-token', 'saas', ['sm_aat_', 'sm_pat_', 'sm_sat_'], W, 'sm_[aps]at_[A-Za-z0-9]{16}'),
  r('intra42-secret', 'saas', ['s-s4t2ud-', 's-s4t2af-'], WD, 's-s4t2(?:ud|af)-[a-f0-9]{64}'),
  r('authress-key', 'saas', ['sc_', 'ext_', 'scauth_', 'authress_'], WDD + '+/=', '(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}'),

  // ---- observability
  r('sentry-org-token', 'observability', ['sntrys_'], B64U, 'sntrys_eyJ[A-Za-z0-9+/=_]{50,600}'),
  r('sentry-user-token', 'observability', ['sntryu_'], W, 'sntryu_[a-f0-9]{64}'),
  r('new-relic-key', 'observability', ['nrak-', 'nraa-', 'nrjs-', 'nrii-'], WD, '(?:NRA[AK]-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9-]{32})'),
  r('grafana-token', 'observability', ['glc_', 'glsa_', 'eyjrijoi'], B64U, '(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})'),
  r('honeycomb-key', 'observability', ['hcaik_', 'hcxik_'], W, 'hc[ax]ik_[A-Za-z0-9]{20,80}'),
  r('posthog-personal-key', 'observability', ['phx_'], W, 'phx_[A-Za-z0-9]{43}'),
  r('axiom-token', 'observability', ['xaat-', 'xapt-'], 'a-z0-9\\-', 'xa[ap]t-' + UUID),

  // ---- databases
  r('planetscale-token', 'database', ['pscale_tkn_', 'pscale_oauth_', 'pscale_pw_'], WDD + '=', 'pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}'),
  r('supabase-key', 'database', ['sbp_', 'sb_secret_'], WD, '(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,100})'),
  r('databricks-token', 'database', ['dapi'], 'a-z0-9\\-', 'dapi[a-f0-9]{32}(?:-[0-9])?'),
  r('clickhouse-cloud-key', 'database', ['4b1d'], 'A-Za-z0-9', '4b1d[A-Za-z0-9]{38}'),

  // ---- signed tokens
  r('jwt', 'crypto', ['eyj'], WDD, 'eyJ[A-Za-z0-9_-]{5,4000}\\.eyJ[A-Za-z0-9_-]{5,4000}\\.[A-Za-z0-9_-]{10,4000}(?:\\.[A-Za-z0-9_-]{10,4000}\\.[A-Za-z0-9_-]{10,4000})?'),
];
