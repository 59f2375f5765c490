/**
 * What the stages of the user area's seed share (seed-user.ts, seed-user-activity.ts): the
 * texts names, places and devices are drawn from, and the random draws themselves.
 */
export const FIRST = [
  'José',
  'Zoë',
  'Ana',
  'Björn',
  'Chloé',
  'Darío',
  'Élodie',
  'François',
  'Günther',
  'Héloïse',
  'Iñaki',
  'Jürgen',
  'Kåre',
  'Léa',
  'Måns',
  'Noémie',
  'Óscar',
  'Paweł',
  'Rênê',
  'Søren',
  'Thérèse',
  'Ümit',
  'Václav',
  'Wojciech',
  'Xóchitl',
  'Yağmur',
  'Žofia',
  'Aoife',
  'Seán',
  'Siobhán',
  'Liam',
  'Olivia',
  'Noah',
  'Emma',
  'Mateo',
  'Sofía',
  'Lucas',
  'Mia',
  'Amelia',
  'Ethan',
  'Priya',
  'Arjun',
  'Fatima',
  'Omar',
  'Nguyễn',
  'Minh',
  'Thảo',
  'Kwame',
  'Amara',
  'Chidi',
  'Ingrid',
  'Lars',
  'Mikael',
  'Astrid',
];
export const LAST = [
  'Núñez',
  'Müller',
  'García',
  'Pérez',
  'Østergaard',
  'Çelik',
  'Dvořák',
  'Łukasiewicz',
  'Ñúñez',
  'Lefèvre',
  'Schröder',
  'Jäger',
  'Öztürk',
  'Brontë',
  'Gonçalves',
  'Sánchez',
  'Fernández',
  'Kowalski',
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Anderson',
  'Taylor',
  'Thomas',
  'Moore',
  'Martin',
  'Lee',
  'Walker',
  'Hall',
  "O'Brien",
  "D'Angelo",
  'McAllister',
  'van der Berg',
  'de la Cruz',
  'Trần',
  'Phạm',
  'Lê',
  'Okafor',
  'Mensah',
  'Haddad',
  'Nakamura',
  'Sato',
  'Kim',
  'Park',
  'Singh',
  'Patel',
  'Ivanova',
  'Petrov',
  'Björklund',
  'Lindqvist',
  'Żak',
];
export const CJK = [
  '山田太郎',
  '佐藤花子',
  '鈴木一郎',
  '高橋美咲',
  '王小明',
  '李娜',
  '张伟',
  '김민준',
  '이서연',
  '田中 健',
  '中村 さくら',
  '陈静',
];
export const CITIES: Array<[string, string, string]> = [
  ['Lisboa', 'Portugal', '1100-148'],
  ['München', 'Germany', '80331'],
  ['São Paulo', 'Brazil', '01310-100'],
  ['Kraków', 'Poland', '31-001'],
  ['Zürich', 'Switzerland', '8001'],
  ['東京', 'Japan', '100-0001'],
  ['Hà Nội', 'Vietnam', '100000'],
  ['Reykjavík', 'Iceland', '101'],
  ['Montréal', 'Canada', 'H2X 1Y4'],
  ['Austin, TX', 'United States', '73301'],
  ['Dublin', 'Ireland', 'D02 X285'],
  ['Accra', 'Ghana', 'GA-123'],
];
export const STREETS = [
  'Rua Augusta',
  'Marienplatz',
  'Avenida Paulista',
  'Rynek Główny',
  'Bahnhofstrasse',
  'Main St.',
  "King's Road",
  "Quai de l'Horloge",
];
export const DEVICES: Array<[string, string, string]> = [
  [
    'MacBook Pro',
    'desktop',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  ],
  ['ThinkPad X1', 'desktop', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'],
  ['iPhone 15', 'mobile', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148'],
  [
    'Pixel 8',
    'mobile',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  ],
  ['iPad Air', 'tablet', 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148'],
  ['subctl on build-server', 'cli', 'subctl/0.1.0 node/20.20.0 linux-x64'],
];
export const REFERRAL_DESCRIPTIONS = [
  'Spring campaign',
  'Friends & family',
  'Newsletter, issue #12',
  'Partner "Acme, Inc." launch',
  'Conference booth\nHall B',
  'Programme de parrainage — été',
  'Blog post referral',
  'Team onboarding',
];

export const DAY = 86_400_000;

export function slug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łŁ]/g, 'l')
    .replace(/[øØ]/g, 'o')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '');
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Random draws from the seed's one PRNG: every stage draws in the order it always has, so the seed stays what it is. */
export interface UserDraw {
  rng: () => number;
  nowMs: number;
  pick<T>(xs: readonly T[]): T;
  int(lo: number, hi: number): number;
  /** `n` lower-case hex digits. */
  hex(n: number): string;
  /** `n` characters of an unambiguous upper-case alphabet. */
  codeChars(n: number): string;
  /** A private or documentation address. */
  ip(): string;
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function userDraws(rng: () => number, nowMs: number): UserDraw {
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  return {
    rng,
    nowMs,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)],
    int,
    hex: (n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rng() * 16)]).join(''),
    codeChars: (n) => Array.from({ length: n }, () => ALNUM[Math.floor(rng() * ALNUM.length)]).join(''),
    ip: () => (rng() < 0.5 ? `192.168.${int(0, 20)}.${int(2, 250)}` : `203.0.113.${int(1, 254)}`),
  };
}

/** A seeded account, as the later stages need it. */
export type Seeded = { id: number; username: string; role: string; status: string; created: number; lastLogin: number | null };
