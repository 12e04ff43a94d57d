/**
 * Static place tables for click records: country → continent (the GeoIP data carries no continent)
 * and subdivision name → ISO 3166-2 code for the countries whose regions analytics users filter
 * most (DB-IP Lite gives names, not codes). Other subdivisions keep their name.
 */

const CONTINENT_MEMBERS: Record<string, string> = {
  AF: 'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM TF',
  AS: 'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU: 'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA: 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

const CONTINENT_OF = new Map<string, string>();
for (const [continent, members] of Object.entries(CONTINENT_MEMBERS)) {
  for (const country of members.split(' ')) CONTINENT_OF.set(country, continent);
}

/** Continent code (`AF`, `AN`, `AS`, `EU`, `NA`, `OC`, `SA`) of a country, or `Unknown`. */
export function continentOf(country: string): string {
  return CONTINENT_OF.get(country) ?? 'Unknown';
}

const SUBDIVISIONS: Record<string, string> = {
  US: 'AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|DC District of Columbia|FL Florida|GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|KS Kansas|KY Kentucky|LA Louisiana|ME Maine|MD Maryland|MA Massachusetts|MI Michigan|MN Minnesota|MS Mississippi|MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|NJ New Jersey|NM New Mexico|NY New York|NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|PA Pennsylvania|RI Rhode Island|SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|VT Vermont|VA Virginia|WA Washington|WV West Virginia|WI Wisconsin|WY Wyoming',
  CA: 'AB Alberta|BC British Columbia|MB Manitoba|NB New Brunswick|NL Newfoundland and Labrador|NS Nova Scotia|NT Northwest Territories|NU Nunavut|ON Ontario|PE Prince Edward Island|QC Quebec|SK Saskatchewan|YT Yukon',
  AU: 'ACT Australian Capital Territory|NSW New South Wales|NT Northern Territory|QLD Queensland|SA South Australia|TAS Tasmania|VIC Victoria|WA Western Australia',
};

const SUBDIVISION_CODE = new Map<string, string>();
for (const [country, list] of Object.entries(SUBDIVISIONS)) {
  for (const entry of list.split('|')) {
    const space = entry.indexOf(' ');
    SUBDIVISION_CODE.set(`${country}:${entry.slice(space + 1).toLowerCase()}`, entry.slice(0, space));
  }
}

/**
 * The click's `region` in the published `US-CA` form: country plus subdivision code. A
 * subdivision known only by name (outside the tables above) is kept as `DE-Hesse`.
 */
export function regionOf(country: string, subdivision: string | null | undefined, isCode = false): string {
  if (!subdivision || country === 'Unknown') return 'Unknown';
  if (isCode) return `${country}-${subdivision.toUpperCase()}`;
  const code = SUBDIVISION_CODE.get(`${country}:${subdivision.toLowerCase()}`);
  return `${country}-${code ?? subdivision}`;
}
